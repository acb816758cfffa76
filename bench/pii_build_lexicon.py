"""Regenerate the word lists the egress name detector reads (``egress/data/*.txt.gz``).

Run once by a developer when the lists should change; nothing at run time downloads or builds.

    .venv/bin/python bench/pii_build_lexicon.py [--english /usr/share/dict/british-english]

Sources (see ``egress/data/README.md`` for licences):

* first names and surnames: the person providers of Faker (MIT), every locale, Latin script only
  (romanised lists where a locale has them);
* countries (Faker's en_US address provider), weekdays, months and nationalities: never a name;
* common English words: SCOWL via Debian's ``wbritish`` (``/usr/share/dict/british-english``),
  lower-case entries only — capitalised entries are proper nouns and would hide names.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path

import faker.providers.person as person_pkg

OUT = Path(__file__).resolve().parent.parent / "egress" / "data"
LATIN_WORD = re.compile(r"^[A-Za-zÀ-ɏḀ-ỿ][A-Za-zÀ-ɏḀ-ỿ'’-]*$")

FIRST_ATTRS = (
    "first_names",
    "first_names_male",
    "first_names_female",
    "first_names_nonbinary",
    "first_romanized_names",
    "first_romanized_names_male",
    "first_romanized_names_female",
)
LAST_ATTRS = (
    "last_names",
    "last_names_male",
    "last_names_female",
    "last_names_nonbinary",
    "last_romanized_names",
)


def _values(obj: object) -> Iterable[str]:
    if isinstance(obj, dict):
        yield from (str(k) for k in obj)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for item in obj:
            if isinstance(item, str):
                yield item


def _words(names: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for name in names:
        for part in re.split(r"[\s]+", name):
            if len(part) >= 2 and LATIN_WORD.match(part):
                out.add(part.lower())
    return out


def faker_names() -> tuple[set[str], set[str]]:
    first: set[str] = set()
    last: set[str] = set()
    for mod in pkgutil.iter_modules(person_pkg.__path__):
        provider = importlib.import_module(f"{person_pkg.__name__}.{mod.name}").Provider
        for attr in FIRST_ATTRS:
            first |= _words(_values(getattr(provider, attr, ())))
        for attr in LAST_ATTRS:
            last |= _words(_values(getattr(provider, attr, ())))
    return first, last


NATIONALITIES = """
american australian austrian belgian brazilian british bulgarian canadian chinese croatian czech
danish dutch english estonian european finnish french german greek hungarian icelandic indian
irish italian japanese latvian lithuanian maltese mexican norwegian polish portuguese romanian
russian scottish slovak slovenian spanish swedish swiss turkish ukrainian welsh african asian
arabic hebrew latin celtic gaelic catholic protestant christian muslim jewish hindu buddhist
monday tuesday wednesday thursday friday saturday sunday january february march april may june
july august september october november december
""".split()


# Irish-language words in the names of Irish state bodies, offices and institutions ("An Garda
# Síochána", "Údarás na Gaeltachta", "Dáil Éireann"). Some are in Faker's name lists ("Garda" is
# a Scandinavian first name), but in Irish tax and welfare text they name an institution.
IRISH_TERMS = """
garda gardaí gardai síochána siochana oireachtas dáil dail seanad éireann eireann taoiseach
tánaiste tanaiste uachtarán uachtaran údarás udaras gaeltachta gaeltacht gaeilge bord pleanála
pleanala comhairle contae cathrach oifig coimisiún coimisiun meán mean foras teagasc coillte
tusla fáilte failte raidió raidio teilifís teilifis gáis gais rialtas cáin
ioncaim státseirbhís statseirbhis ard aighne stiúrthóir stiurthoir ionchúiseamh ionchuiseamh
cúirt cuirt breithiúnas seirbhís seirbhis sláinte slainte feidhmeannacht pobal náisiúnta
naisiunta ollscoil coláiste colaiste roinn aire ceann oideachais airgeadais cosanta
""".split()


def non_names() -> set[str]:
    """Words Faker lists as names that are far more often countries, days, nationalities or
    Irish-language institution words."""
    from faker.providers.address.en_US import Provider as Address

    words = set(NATIONALITIES) | set(IRISH_TERMS)
    for country in Address.countries:
        words |= {w.lower() for w in re.findall(r"[A-Za-z]+", country) if len(w) > 2}
    return words - {"and", "the", "of"}


def english_words(path: Path) -> set[str]:
    words = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and line[0].islower() and "'" not in line:
            words.add(line)
    return words


def write(name: str, words: set[str]) -> None:
    data = "\n".join(sorted(words)).encode("utf-8") + b"\n"
    (OUT / name).write_bytes(gzip.compress(data, mtime=0))
    print(f"{name}: {len(words)} words")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--english", type=Path, default=Path("/usr/share/dict/british-english"))
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    first, last = faker_names()
    write("first_names.txt.gz", first)
    write("surnames.txt.gz", last)
    write("english_words.txt.gz", english_words(args.english))
    write("non_names.txt.gz", non_names())


if __name__ == "__main__":
    main()
