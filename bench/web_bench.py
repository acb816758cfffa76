"""Web app benchmark: the figures of ADR 0021's Measurements, in one run, in a real browser.

    .venv/bin/python bench/web_bench.py [--writes 50] [--patches 100] [--loads 5] [--data DIR]

The server is its own process, started as the e2e tests start theirs (``REGINTEL_*`` variables,
wait for ``/health``), on the seeded demo graph (the AI Act, GDPR and the seed rules; seeded into
a temporary folder first, or copied from ``--data``): ``tests.support.web_bench_server``, the
real app plus ``POST /bench/nodes``, which writes through the served app's own
``GraphWriteService``, so a write reaches the page the way any write does (write service →
change detector, batch window ``REGINTEL_GRAPH_BATCH_WINDOW_MS`` → ``GET /api/graph/patches`` →
the page's ``applyPatch``). The page is the web app in Debian's ``chromium`` (Playwright),
signed in as ``dev-acme-alice``, 1440×900.

1. **Write → on the page**: ``--writes`` writes of one ``Rate`` node, one after the other. The
   time is from just before the write's request (this process's wall clock) to the first
   animation frame after the node was added to the page's graph (``Date.now()`` in the page, in
   a ``requestAnimationFrame`` scheduled by Cytoscape's ``add`` event: the frame that draws it).
   Same machine, same clock. p50 / p95 / max.
2. **Page load** with the AI Act and GDPR graph (the overview: ~740 nodes), ``--loads`` times,
   each in a fresh browser context (empty cache; the key is put in ``sessionStorage`` before the
   page runs, as after a sign-in): first paint and first contentful paint
   (``performance.getEntriesByType('paint')``) and the interactive graph (snapshot fetched, fCoSE
   layout done, drawn: ``graph.loadedAt``), all from navigation start; medians, and the layout
   alone.
3. **Frame rate while ``--patches`` patches arrive**: one write every ``--every`` seconds (longer
   than the batch window, so most writes are a patch of their own) until the page applied
   ``--patches`` patches; a ``requestAnimationFrame`` counter runs meanwhile. Frames per second,
   p95 and worst frame interval, frames over 50 ms, and the main-thread time of one
   ``applyPatch`` (p50 / p95); the same counter idle for 5 s first, as the baseline.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests` is not an installed package
    sys.path.insert(0, str(ROOT))

from tests.support.seeded import seed_data_dir  # noqa: E402
from tests.support.server_process import free_port  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
KEY = "dev-acme-alice"

# an init script runs before the page's own scripts (Playwright injects it; the CSP does not apply)
SIGNED_IN = f"sessionStorage.setItem('regintel.token', '{KEY}');"
WATCH_ADDS = """() => {
  window.benchSeen = {};
  window.regintel.graph.cy.on("add", "node", (event) => {
    const id = event.target.id();
    requestAnimationFrame(() => { window.benchSeen[id] = Date.now(); });
  });
  window.benchPatchMs = [];
  const graph = window.regintel.graph;
  const apply = graph.applyPatch.bind(graph);
  graph.applyPatch = (patch) => {
    const started = performance.now();
    apply(patch);
    window.benchPatchMs.push(performance.now() - started);
  };
}"""
COUNT_FRAMES = """() => {
  window.benchFrames = [];
  window.benchStop = false;
  const tick = (t) => {
    window.benchFrames.push(t);
    if (!window.benchStop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""
LOAD_FIGURES = """() => {
  const paint = Object.fromEntries(
    performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
  const graph = window.regintel.graph;
  return {
    firstPaint: paint["first-paint"] ?? null,
    firstContentfulPaint: paint["first-contentful-paint"] ?? null,
    interactive: graph.loadedAt, layout: graph.layoutMs,
    nodes: graph.cy.nodes().length, edges: graph.cy.edges().length,
  };
}"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@contextlib.contextmanager
def bench_server(data: Path, log: Path) -> Iterator[str]:
    """``tests.support.web_bench_server`` on ``data``, as ``server_process`` starts the e2e one."""
    port = free_port()
    env = {**os.environ, "REGINTEL_DATA_DIR": str(data), "REGINTEL_LOG_JSON": "false"}
    env.setdefault("REGINTEL_LOG_LEVEL", "WARNING")
    command = [sys.executable, "-m", "tests.support.web_bench_server", "--port", str(port)]
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited at start-up; see {log}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base}/health", timeout=2).status_code in (200, 503):
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start; see {log}")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def rate(node_id: str, i: int) -> dict[str, Any]:
    props = {"name": f"Web bench rate {i}", "value": (i % 40) / 100, "unit": "ratio"}
    return {"id": node_id, "label": "Rate", "properties": props}


def wait_live(page: Page) -> None:
    page.wait_for_function(
        "() => window.regintel && window.regintel.graph.loadedAt !== undefined", timeout=120_000
    )
    page.wait_for_function(
        "() => document.getElementById('graph-status').textContent === 'Live'", timeout=60_000
    )


def page_loads(browser: Any, base: str, loads: int) -> list[dict[str, Any]]:
    figures = []
    for _ in range(loads):
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        context.add_init_script(SIGNED_IN)
        page = context.new_page()
        page.goto(base + "/")
        wait_live(page)
        figures.append(page.evaluate(LOAD_FIGURES))
        context.close()
    return figures


def write_latencies(page: Page, client: httpx.Client, writes: int) -> list[float]:
    latencies = []
    for i in range(writes):
        node_id = f"IE:RATE:WEB_BENCH_L{i:03d}"
        issued = time.time() * 1000
        client.post("/bench/nodes", json={"nodes": [rate(node_id, i)]}).raise_for_status()
        page.wait_for_function("(id) => id in window.benchSeen", arg=node_id, timeout=60_000)
        latencies.append(float(page.evaluate("(id) => window.benchSeen[id]", node_id)) - issued)
        time.sleep(0.05)
    return latencies


def frame_figures(frames: list[float]) -> dict[str, float]:
    gaps = [b - a for a, b in itertools.pairwise(frames)]
    seconds = (frames[-1] - frames[0]) / 1000
    return {
        "seconds": seconds,
        "fps": len(gaps) / seconds,
        "gap_p95": percentile(gaps, 0.95),
        "gap_max": max(gaps),
        "long_frames": sum(1 for g in gaps if g > 50),
    }


def idle_frames(page: Page, seconds: float) -> dict[str, float]:
    """The same counter with nothing arriving: the baseline of this browser on this machine."""
    page.evaluate(COUNT_FRAMES)
    time.sleep(seconds)
    page.evaluate("() => { window.benchStop = true; }")
    return frame_figures(page.evaluate("() => window.benchFrames"))


def frames_under_patches(
    page: Page, client: httpx.Client, patches: int, every: float
) -> dict[str, float]:
    """Write one node every ``every`` seconds until the page has applied ``patches`` patches
    (a write that shares a batch window with the next makes one patch of two)."""
    applied = "() => window.regintel.graph.patchesApplied"
    before = int(page.evaluate(applied))
    page.evaluate("() => { window.benchPatchMs = []; }")
    page.evaluate(COUNT_FRAMES)
    ids: list[str] = []
    started = time.monotonic()
    while int(page.evaluate(applied)) - before < patches:
        node_id = f"IE:RATE:WEB_BENCH_F{len(ids):03d}"
        ids.append(node_id)
        client.post("/bench/nodes", json={"nodes": [rate(node_id, len(ids))]}).raise_for_status()
        time.sleep(max(0.0, started + len(ids) * every - time.monotonic()))
    page.wait_for_function("(ids) => ids.every((id) => id in window.benchSeen)", arg=ids)
    page.evaluate("() => { window.benchStop = true; }")
    patch_ms: list[float] = page.evaluate("() => window.benchPatchMs")
    return {
        **frame_figures(page.evaluate("() => window.benchFrames")),
        "patches": int(page.evaluate(applied)) - before,
        "writes": len(ids),
        "patch_p50": statistics.median(patch_ms),
        "patch_p95": percentile(patch_ms, 0.95),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--patches", type=int, default=100)
    parser.add_argument("--every", type=float, default=0.3, help="Seconds between those writes.")
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--data", type=Path, default=None, help="A seeded data folder to copy.")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit("Debian's chromium is missing: run `make system-deps`")

    with tempfile.TemporaryDirectory(prefix="regintel-web-bench-") as tmp:
        data = Path(tmp) / "data"
        started = time.monotonic()
        if args.data:
            shutil.copytree(args.data, data)
        else:
            print("seeding the demo graph (AI Act, GDPR, seed rules)…", flush=True)
            seed_data_dir(data)
        print(f"data ready in {time.monotonic() - started:.0f} s", flush=True)
        log = Path(tmp) / "server.log"
        with (
            bench_server(data, log) as base,
            httpx.Client(base_url=base, timeout=30) as client,
            sync_playwright() as playwright,
        ):
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
            loads = page_loads(browser, base, args.loads)
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            context.add_init_script(SIGNED_IN)
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(base + "/")
            wait_live(page)
            page.evaluate(WATCH_ADDS)
            latencies = write_latencies(page, client, args.writes)
            idle = idle_frames(page, 5.0)
            frames = frames_under_patches(page, client, args.patches, args.every)
            browser.close()

    window = os.environ.get("REGINTEL_GRAPH_BATCH_WINDOW_MS", "200")
    cores = os.cpu_count()
    print(f"\nchromium {CHROMIUM}, headless, 1440x900; {cores} cores; batch window {window} ms")
    first = loads[0]
    print(f"graph on the page: {first['nodes']} nodes, {first['edges']} edges (overview labels)")

    def median(key: str) -> float:
        return statistics.median(float(x[key]) for x in loads if x[key] is not None)

    print(f"\npage load, {len(loads)} fresh contexts (median; from navigation start):")
    print(f"  first paint               {median('firstPaint'):7.0f} ms")
    print(f"  first contentful paint    {median('firstContentfulPaint'):7.0f} ms")
    print(f"  interactive graph         {median('interactive'):7.0f} ms")
    print(f"    of which fCoSE layout   {median('layout'):7.0f} ms")
    each = ", ".join(f"{float(x['interactive']):.0f}" for x in loads)
    print(f"  interactive, each run     {each} ms")
    print(f"\nwrite -> node drawn on the page, {len(latencies)} writes:")
    print(
        f"  p50 {statistics.median(latencies):.0f} ms   p95 {percentile(latencies, 0.95):.0f} ms"
        f"   max {max(latencies):.0f} ms   min {min(latencies):.0f} ms"
    )
    print(
        f"\nframe rate while {frames['patches']:.0f} patches arrived ({frames['writes']:.0f} "
        f"writes, one every {args.every * 1000:.0f} ms, {frames['seconds']:.1f} s):"
    )
    for name, f in (("with patches", frames), ("idle, 5 s", idle)):
        print(
            f"  {name:<13} {f['fps']:5.1f} frames/s   interval p95 {f['gap_p95']:5.1f} ms"
            f"   worst {f['gap_max']:4.0f} ms   frames over 50 ms: {f['long_frames']:.0f}"
        )
    print(
        f"  applyPatch main-thread time p50 {frames['patch_p50']:.1f} ms"
        f"   p95 {frames['patch_p95']:.1f} ms"
    )


if __name__ == "__main__":
    main()
