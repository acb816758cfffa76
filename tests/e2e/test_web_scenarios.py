"""The scenario panel in headless Chromium (issue 28, must-have 6), against a real server on the
seeded graph: two scenarios entered as facts in the form (€50,000 and €60,000 PAYE, single, IE
2025), each evaluated into a table whose figures carry citation chips, the two compared, and a
chip opening its rate's node in the graph view; then one of them picked for a conversation, its
what-if answered from it, the link removed and set again; an edit in the form keeps the facts
and snapshots the form does not show. Each evaluation and the comparison
also say who qualifies by the graph's conditions ("cannot tell: missing proprietary_director",
with chips of the credit and its condition) and, for a sole trader, the deadlines that bind
(ADR 0071)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_web_app import Served, screenshot
from tests.e2e.test_web_app import served as served  # the module-scoped fixture

pytestmark = pytest.mark.e2e


def _enter(page: Page, label: str, paye: str, self_employed: str = "") -> None:
    page.get_by_role("button", name="New scenario").click()
    form = page.locator("#scenario-form")
    form.get_by_label("Scenario name").fill(label)
    form.get_by_label("Tax year").fill("2025")
    form.get_by_label("Jurisdiction").select_option("IE")
    form.get_by_label("Civil status").select_option("single")
    form.get_by_label("Age", exact=True).fill("35")
    form.get_by_label("Employment (PAYE) income").fill(paye)
    form.get_by_label("Self-employed income", exact=True).fill(self_employed)
    form.get_by_role("button", name="Save and evaluate").click()
    expect(page.get_by_role("status").filter(has_text=f"Saved “{label}”")).to_be_visible()


def test_the_scenario_panel_evaluates_compares_and_a_chip_opens_its_node(served: Served) -> None:
    page = served.page("dev-acme-bob")
    try:
        page.get_by_role("button", name="Scenarios").click()
        expect(page.get_by_role("heading", name="Scenarios")).to_be_visible()

        _enter(page, "Fifty", "50,000")
        evaluation = page.locator("table.scenario-evaluation")
        expect(evaluation.locator("tr.total").first).to_contain_text("Total Income tax")
        expect(evaluation.locator("tr.total").first).to_contain_text("€7,200.00")
        expect(evaluation).to_contain_text("Total USC")
        expect(evaluation).to_contain_text("€1,046.00")
        # every figure has chips, each a node id
        rows = evaluation.locator("tbody tr")
        for i in range(rows.count()):
            expect(rows.nth(i).locator("button.scenario-chip").first).to_be_visible()

        # who qualifies, by the graph's conditions: the employee credit's condition reads a fact
        # the form did not state, so it cannot be told and says which
        eligibility = page.locator("table.scenario-eligibility")
        credit = eligibility.locator("tbody tr").filter(has_text="Employee tax credit")
        expect(credit.locator("td").nth(1)).to_have_text(
            "cannot tell: missing proprietary_director"
        )
        expect(credit).to_have_attribute("data-status", "cannot_tell")
        expect(
            credit.locator("button.scenario-chip", has_text="IE:CONDITION:NOT_PROPRIETARY_DIRECTOR")
        ).to_be_visible()
        expect(page.locator("table.scenario-deadlines")).to_have_count(0)  # PAYE only: none

        # a sole trader: Form 11 applies and its pay-and-file date binds
        _enter(page, "Sole trader", "", "40000")
        filing = eligibility.locator("tbody tr").filter(has_text="File an income tax return")
        expect(filing.locator("td").nth(1)).to_have_text("applies")
        deadline = page.locator("table.scenario-deadlines tbody tr").filter(
            has_text="Pay-and-file deadline 31 October"
        )
        expect(deadline.locator("td").nth(2)).to_have_text("due 2026-10-31")
        expect(
            deadline.locator("button.scenario-chip", has_text="IE:TIMELINE:RETURN_DEADLINE_31_OCT")
        ).to_be_visible()

        _enter(page, "Sixty", "60000")
        expect(evaluation.locator("tr.total").first).to_contain_text("€11,200.00")

        page.get_by_label("Compare Fifty").check()
        page.get_by_label("Compare Sixty").check()
        page.get_by_role("button", name="Compare selected").click()
        comparison = page.locator("table.scenario-comparison")
        income_tax = comparison.locator("tr.total").filter(has_text="Total Income tax")
        # in the order ticked: Fifty, Sixty, and the difference last minus first
        expect(income_tax.locator("td")).to_have_text(
            ["Total Income tax", "€7,200.00", "€11,200.00", "€4,000.00", re.compile("IE:")]
        )
        expect(comparison.locator("thead th")).to_have_text(
            ["Line", "Fifty", "Sixty", "Difference", "Sources"]
        )
        compared = page.locator("table.scenario-eligibility-comparison")
        expect(compared.locator("thead th")).to_have_text(
            ["Relief or obligation", "Fifty", "Sixty", "Decided by"]
        )
        expect(compared.locator("tbody tr").filter(has_text="Employee tax credit")).to_contain_text(
            "cannot tell: missing proprietary_director"
        )
        screenshot(page, "scenario-comparison")

        # a chip opens its rate's node in the graph view
        chip = comparison.locator("button.scenario-chip", has_text="IE:RATE:IT_HIGHER:2025").first
        chip.click()
        expect(page.locator("#workspace")).to_be_visible()
        details = page.get_by_label("Node details")
        expect(details).to_be_visible()
        expect(details).to_contain_text("IE:RATE:IT_HIGHER:2025")
        expect(details).to_contain_text("2025-01-01")
        screenshot(page, "scenario-chip-node")

        # a stored scenario picked for a new conversation: the first what-if starts from it
        page.get_by_role("button", name="New conversation").click()
        pick = page.get_by_label("Scenario for what-if questions")
        expect(pick.locator("option").first).to_have_text("No scenario")
        expect(pick.locator("option", has_text="Fifty")).to_have_count(1)
        pick.select_option(label="Fifty")
        linked = page.locator("#conversation-scenario-status")
        expect(linked).to_have_text("Your first question will use “Fifty”.")
        page.get_by_label("Your question").fill("what if I earned €60,000 instead?")
        page.get_by_role("button", name="Ask").click()
        answer = page.locator("#messages li.message.assistant").last
        expect(answer).to_contain_text("Fifty (2025)", timeout=30_000)
        expect(answer).to_contain_text("€7,200.00")
        expect(answer).to_contain_text("€11,200.00")
        # the comparison is a table (web/markdown.js), its rows' citations buttons
        table = answer.locator("table").first
        expect(table.locator("thead th").nth(1)).to_contain_text("Fifty (2025)")
        expect(table.locator("tbody button.cite-ref").first).to_be_visible()
        expect(linked).to_have_text("What-if questions here start from “Fifty”.")
        expect(page.locator("#send")).to_be_enabled(timeout=30_000)  # the turn has ended
        conversation = page.evaluate("window.regintel.chat.conversationId")
        path = f"/api/conversations/{conversation}/scenario"
        read = f"window.regintel.api.json('GET', '{path}')"
        assert page.evaluate(read)["scenario"]["label"] == "Fifty"
        # "No scenario" removes the link; another pick links that one instead
        pick.select_option(label="No scenario")
        expect(linked).to_have_text("No scenario linked.")
        assert page.evaluate(read)["scenario"] is None
        pick.select_option(label="Sixty")
        expect(linked).to_have_text("What-if questions here start from “Sixty”.")
        assert page.evaluate(read)["scenario"]["label"] == "Sixty"
        # opening the conversation again shows its link
        page.get_by_role("button", name="New conversation").click()
        expect(pick).to_have_value("")
        page.locator(f'button[data-conversation-id="{conversation}"]').click()
        expect(pick.locator("option:checked")).to_have_text("Sixty")
        screenshot(page, "scenario-linked-conversation")

    finally:
        page.context.close()


def test_an_edit_in_the_form_keeps_what_the_form_does_not_show(served: Served) -> None:
    """The form shows a snapshot's main facts only: saving it keeps the others (a disposal, a
    pension contribution) and the scenario's later snapshots as stored."""
    page = served.page("dev-acme-alice")
    try:
        facts = {
            "tax_year": 2025,
            "jurisdiction": "IE",
            "status": "single",
            "age": 35,
            "paye_income": "50000",
            "pension_contributions": "3000",
            "disposals": [
                {
                    "asset": "shares",
                    "acquired_on": "2020-01-15",
                    "disposed_on": "2025-06-01",
                    "cost": "5000",
                    "proceeds": "8000",
                }
            ],
        }
        later = {**facts, "paye_income": "52000", "disposals": []}
        body = {"label": "Two snapshots", "snapshots": [
            {"label": "Now", "as_at": "2025-06-30", "facts": facts},
            {"label": "Year end", "as_at": "2025-12-31", "facts": later}]}  # fmt: skip
        created = page.evaluate("(body) => window.regintel.api.json('POST', '/api/scenarios', "
                                "{ body })", body)  # fmt: skip
        page.get_by_role("button", name="Scenarios").click()
        page.get_by_role("button", name="Two snapshots", exact=True).click()
        form = page.locator("#scenario-form")
        expect(form.get_by_label("Employment (PAYE) income")).to_have_value("50000")
        form.get_by_label("Employment (PAYE) income").fill("55000")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(page.get_by_role("status").filter(has_text="Saved “Two snapshots”")).to_be_visible()
        stored = page.evaluate(f"window.regintel.api.json('GET', '/api/scenarios/{created['id']}')")
        first, second = stored["snapshots"]
        assert (first["label"], first["as_at"]) == ("Now", "2025-06-30")
        assert Decimal(first["facts"]["paye_income"]) == 55000
        assert Decimal(first["facts"]["pension_contributions"]) == 3000
        assert [d["asset"] for d in first["facts"]["disposals"]] == ["shares"]
        assert (second["label"], second["as_at"]) == ("Year end", "2025-12-31")
        assert Decimal(second["facts"]["paye_income"]) == 52000
    finally:
        page.context.close()


def test_a_disposal_entered_in_the_form_is_taxed_with_its_relief(served: Served) -> None:
    """A home sold (IE 2025): the form's disposal fields reach the engine; principal private
    residence relief exempts the gain (its chip opens the relief's node); saying it was not the
    main home, with fees, charges 33% after the exemption (ADR 0086)."""
    page = served.page("dev-globex-carol")
    try:
        page.get_by_role("button", name="Scenarios").click()
        page.get_by_role("button", name="New scenario").click()
        form = page.locator("#scenario-form")
        form.get_by_label("Scenario name").fill("Home sale")
        form.get_by_label("Tax year").fill("2025")
        form.get_by_label("Jurisdiction").select_option("IE")
        form.get_by_label("Employment (PAYE) income").fill("60000")
        form.get_by_label("Asset sold").fill("house")
        form.get_by_label("Bought on").fill("2012-03-01")
        form.get_by_label("Sold on").fill("2025-05-20")
        form.get_by_label("Cost", exact=True).fill("250,000")
        form.get_by_label("Sale proceeds").fill("400000")
        form.get_by_label("Your only or main home throughout").select_option("yes")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(page.get_by_role("status").filter(has_text="Saved “Home sale”")).to_be_visible()
        evaluation = page.locator("table.scenario-evaluation")
        cgt = evaluation.locator("tr.total").filter(has_text="Total Capital gains tax")
        expect(cgt).to_contain_text("€0.00")
        relief = evaluation.locator("tbody tr").filter(has_text="Principal private residence")
        expect(relief).to_contain_text("€150,000.00")
        chip = relief.locator(
            "button.scenario-chip", has_text="IE:RELIEF:PRINCIPAL_PRIVATE_RESIDENCE"
        )
        expect(chip).to_be_visible()
        screenshot(page, "scenario-disposal-relief")

        # not the main home, with fees: (400,000 - 250,000 - 5,000 - 1,270) x 33%
        form.get_by_label("Your only or main home throughout").select_option("no")
        form.get_by_label("Fees and other allowable costs").fill("5000")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(cgt).to_contain_text("€47,430.90")
        expect(
            evaluation.locator("tbody tr").filter(has_text="Principal private residence")
        ).to_have_count(0)
        scenarios = page.evaluate("window.regintel.api.json('GET', '/api/scenarios?limit=100')")
        stored = next(s for s in scenarios if s["label"] == "Home sale")
        (disposal,) = stored["snapshots"][0]["facts"]["disposals"]
        assert disposal["main_residence"] is False
        assert Decimal(disposal["allowable_expenses"]) == 5000
        assert Decimal(disposal["cost"]) == 250000

        # the relief's chip (from the first evaluation) opens its node in the graph view
        form.get_by_label("Your only or main home throughout").select_option("yes")
        form.get_by_label("Fees and other allowable costs").fill("")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(cgt).to_contain_text("€0.00")
        chip.click()
        details = page.get_by_label("Node details")
        expect(details).to_contain_text("IE:RELIEF:PRINCIPAL_PRIVATE_RESIDENCE")
    finally:
        page.context.close()


def test_a_couple_is_assessed_as_the_form_says(served: Served) -> None:
    """Married, €50,000 + €30,000 PAYE (IE 2025): jointly assessed €8,000 for the couple;
    unstated, the evaluation says it cannot tell how the couple is assessed."""
    page = served.page("dev-globex-carol")
    try:
        page.get_by_role("button", name="Scenarios").click()
        page.get_by_role("button", name="New scenario").click()
        form = page.locator("#scenario-form")
        form.get_by_label("Scenario name").fill("Married")
        form.get_by_label("Tax year").fill("2025")
        form.get_by_label("Jurisdiction").select_option("IE")
        form.get_by_label("Civil status").select_option("married")
        form.get_by_label("Employment (PAYE) income").fill("50000")
        form.get_by_label("Spouse's PAYE income").fill("30000")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(page.get_by_role("status").filter(has_text="Saved “Married”")).to_be_visible()
        results = page.locator(".scenario-results")
        expect(results).to_contain_text("how the couple is assessed is not stated")
        form.get_by_label("How the couple is assessed").select_option("joint")
        form.get_by_role("button", name="Save and evaluate").click()
        evaluation = page.locator("table.scenario-evaluation")
        total = evaluation.locator("tr.total").filter(has_text="Total Income tax")
        expect(total.first).to_contain_text("€8,000.00")
        scenarios = page.evaluate("window.regintel.api.json('GET', '/api/scenarios?limit=100')")
        stored = next(s for s in scenarios if s["label"] == "Married")
        assert stored["snapshots"][0]["facts"]["assessment"] == "joint"
    finally:
        page.context.close()


def test_rent_and_a_widowed_parent_entered_in_the_form_get_their_credits(served: Served) -> None:
    """Single, €38,000 PAYE, €3,500 rent on a registered tenancy (IE 2025): the rent tax credit
    €700 with its chip, income tax €2,900; then widowed in 2023 with a child, caring alone:
    the widowed parent (€3,150) and single person child carer (€1,900) credits (ADR 0091)."""
    page = served.page("dev-globex-carol")
    try:
        page.get_by_role("button", name="Scenarios").click()
        page.get_by_role("button", name="New scenario").click()
        form = page.locator("#scenario-form")
        form.get_by_label("Scenario name").fill("Renting")
        form.get_by_label("Tax year").fill("2025")
        form.get_by_label("Jurisdiction").select_option("IE")
        form.get_by_label("Age", exact=True).fill("30")
        form.get_by_label("Employment (PAYE) income").fill("38000")
        form.get_by_label("Rent paid on your home").fill("3,500")
        form.get_by_label("Tenancy registered with the RTB (rent tax credit)").select_option("yes")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(page.get_by_role("status").filter(has_text="Saved “Renting”")).to_be_visible()
        evaluation = page.locator("table.scenario-evaluation")
        total = evaluation.locator("tr.total").filter(has_text="Total Income tax")
        expect(total).to_contain_text("€2,900.00")  # 7,600 - 2,000 - 2,000 - 700
        rent = evaluation.locator("tbody tr").filter(has_text="Rent tax credit")
        expect(rent).to_contain_text("€700.00")
        expect(
            rent.locator("button.scenario-chip", has_text="IE:RELIEF:RENT_TAX_CREDIT_SINGLE:2025")
        ).to_be_visible()

        # widowed in 2023, one child, caring alone: 38,000 x 20% = 7,600 - 2,000 - 2,000
        # - 700 rent - 1,900 SPCCC - 3,150 widowed parent: nil (credits are not refundable)
        form.get_by_label("Civil status").select_option("widowed")
        form.get_by_label("Year your spouse died (if widowed)").fill("2023")
        form.get_by_label("Dependent children").fill("1")
        form.get_by_label(
            "Caring for a child alone (single person child carer credit)"
        ).select_option("yes")
        form.get_by_role("button", name="Save and evaluate").click()
        expect(evaluation.locator("tbody tr").filter(has_text="Widowed parent")).to_contain_text(
            "€3,150.00"
        )
        expect(total).to_contain_text("€0.00")
        scenarios = page.evaluate("window.regintel.api.json('GET', '/api/scenarios?limit=100')")
        stored = next(s for s in scenarios if s["label"] == "Renting")
        facts = stored["snapshots"][0]["facts"]
        assert (facts["bereaved_in"], facts["dependent_children"]) == (2023, 1)
        assert facts["single_person_child_carer"] is True and facts["tenancy_registered"] is True
    finally:
        page.context.close()
