"""Issue 24: a capture's near duplicates among other captures (quarantined concepts) are review
candidates of its new provisional concept, never merges (engine/matching.py, ADR 0049)."""

from collections.abc import Sequence

import pytest

from engine.concepts import CapturedConcept
from engine.matching import ConceptMatcher, FoundBy, quarantined_candidates
from graph.models import GraphNode, GraphSnapshot

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def held(node_id: str, pref: str, *labels: str, status: str = "provisional") -> GraphNode:
    domain, jurisdiction, kind = node_id.split(":")
    props = {"domain": domain, "kind": kind, "jurisdiction": jurisdiction, "pref_label": pref}
    return GraphNode(id=node_id, label="Concept", properties={**props, "status": status})


SMALL = held("TAX:IE:SMALL_BENEFIT_EXEMPTION", "small benefit exemption")
MOTOR = held("TAX:IE:MOTOR_TAX", "Motor tax")
EU_ACT = held("EU_LAW:EU:DATA_ACT", "Data Act")
UK_SMALL = held("TAX:UK:SMALL_BENEFIT_EXEMPTION", "small benefit exemption")


def found(kind: str, *labels: str, among: Sequence[GraphNode] = (SMALL, MOTOR)):
    pairs = [(node, [str(node.properties["pref_label"])]) for node in among]
    return {(c.id, c.found_by) for c in quarantined_candidates(kind, list(labels), pairs)}


def test_a_parent_or_child_of_a_captured_concept_is_a_candidate():
    assert found("SMALL_BENEFIT_SCHEME", "small benefit exemption scheme") == {
        ("TAX:IE:SMALL_BENEFIT_EXEMPTION", FoundBy.PARENT_CHILD)
    }


def test_a_typo_and_the_same_label_form_are_candidates():
    assert found("ROAD_LEVY", "Motor-taxe") == {("TAX:IE:MOTOR_TAX", FoundBy.EDIT_DISTANCE)}
    assert found("VEHICLE_TAX", "motor taxes") == {("TAX:IE:MOTOR_TAX", FoundBy.LABEL)}


def test_initials_of_a_captured_acronym_are_a_candidate():
    uk_gdpr = held("DATA_PROTECTION:UK:UK_GDPR", "UK GDPR")
    long_name = "United Kingdom General Data Protection Regulation"
    assert found("UK_GENERAL_DATA_PROTECTION_REGULATION", long_name, among=[uk_gdpr]) == {
        ("DATA_PROTECTION:UK:UK_GDPR", FoundBy.ACRONYM)
    }
    irish = "Irish General Data Protection Regulation"  # another jurisdiction's words
    assert found("IRISH_GENERAL_DATA_PROTECTION_REGULATION", irish, among=[uk_gdpr]) == set()


def test_an_unrelated_capture_has_no_candidate_among_captures():
    assert found("CARBON_LEVY", "carbon levy") == set()


def test_a_label_naming_another_jurisdiction_is_near_not_the_same_form():
    got = found("IRISH_DATA_ACT", "Irish Data Act", among=[EU_ACT])
    assert got == {("EU_LAW:EU:DATA_ACT", FoundBy.PARENT_CHILD)}
    assert found("DATA_ACT", "Data Act", among=[EU_ACT]) == {("EU_LAW:EU:DATA_ACT", FoundBy.LABEL)}


class Reader:
    """The reads matching makes, over a fixed set of quarantined concepts."""

    def __init__(self, nodes: Sequence[GraphNode]) -> None:
        self.nodes = list(nodes)
        self.asked: list[list[str]] = []

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        return [n for n in self.nodes if n.id in ids]

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        return []

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        return GraphSnapshot(nodes=[], edges=[])

    async def quarantined_concepts(
        self, jurisdictions: Sequence[str], limit: int = 1000
    ) -> list[tuple[GraphNode, list[str]]]:
        self.asked.append(list(jurisdictions))
        return [
            (n, [str(n.properties["pref_label"])])
            for n in self.nodes
            if n.properties["status"] == "provisional"
            and n.properties["jurisdiction"] in jurisdictions
        ][:limit]


def capture(kind: str, label: str, jurisdiction: str = "IE") -> CapturedConcept:
    return CapturedConcept(domain="TAX", kind=kind, jurisdiction=jurisdiction, prefLabel=label)


async def test_a_new_concept_near_another_capture_is_created_with_it_as_candidate():
    reader = Reader([SMALL, MOTOR, UK_SMALL, EU_ACT])
    match = await ConceptMatcher(reader).identify(
        capture("SMALL_BENEFIT_SCHEME", "small benefit exemption scheme"), ["IE"]
    )
    assert match.node is None and match.matched_by == "created"
    assert [(s.id, s.reason) for s in match.suggestions] == [
        ("TAX:IE:SMALL_BENEFIT_EXEMPTION", "parent_child")
    ]
    assert reader.asked == [["EU", "IE"]]  # its jurisdiction and the EU's only


async def test_a_reviewed_or_merged_concept_is_not_read_as_a_capture():
    reviewed = held("TAX:IE:SMALL_BENEFIT_EXEMPTION", "small benefit exemption", status="confirmed")
    match = await ConceptMatcher(Reader([reviewed])).identify(
        capture("SMALL_BENEFIT_SCHEME", "small benefit exemption scheme"), ["IE"]
    )
    assert match.suggestions == ()


async def test_a_capture_is_never_its_own_candidate():
    match = await ConceptMatcher(Reader([MOTOR])).identify(
        capture("MOTOR_TAX", "motor tax"), ["UK", "IE"]
    )
    assert all(s.id != "TAX:IE:MOTOR_TAX" for s in match.suggestions) or match.node is not None


def test_an_acronym_that_is_not_just_initials_is_a_candidate_either_way():
    inheritance = held("TAX:UK:INHERITANCE_TAX", "Inheritance Tax")
    assert found("IHT", "IHT", among=[inheritance]) == {
        ("TAX:UK:INHERITANCE_TAX", FoundBy.ABBREVIATION)
    }
    mica = held("EU_LAW:EU:MARKETS_IN_CRYPTO_ASSETS", "Markets in Crypto-Assets Regulation")
    assert found("MICA", "MiCA", among=[mica]) == {
        ("EU_LAW:EU:MARKETS_IN_CRYPTO_ASSETS", FoundBy.ABBREVIATION)
    }
    short = held("TAX:UK:IHT", "IHT")
    assert found("INHERITANCE_TAX", "Inheritance Tax", among=[short]) == {
        ("TAX:UK:IHT", FoundBy.ABBREVIATION)
    }
    # every content word gives a letter, in order: "IHT" is not income tax, "TAX" not taxation
    assert found("IHT", "IHT", among=[held("TAX:UK:INCOME_TAX", "Income tax")]) == set()
    assert found("TAX", "TAX", among=[held("TAX:UK:TAXATION", "taxation")]) == set()


def eu_capture(kind: str, label: str, *alts: str, jurisdiction: str = "EU") -> CapturedConcept:
    return CapturedConcept(
        domain="EU_LAW", kind=kind, jurisdiction=jurisdiction, prefLabel=label, altLabels=[*alts]
    )


EUDR = held("EU_LAW:EU:EU_DEFORESTATION_REGULATION", "EU Deforestation Regulation")
DSA = held("EU_LAW:EU:DIGITAL_SERVICES_ACT", "Digital Services Act")


async def test_another_captures_concept_with_the_same_label_form_is_joined():
    # ADR 0075: the exact forms a reviewed concept is joined on, here "EU" naming the EU
    match = await ConceptMatcher(Reader([EUDR])).identify(
        eu_capture("DEFORESTATION_REGULATION", "Deforestation Regulation"), ["EU"]
    )
    assert match.node is not None and match.node.id == EUDR.id
    assert match.matched_by == "alias"
    # an EU-level capture joins from a member state's conversation when its words spell it
    match = await ConceptMatcher(Reader([DSA])).identify(
        eu_capture("DSA", "DSA", "Digital Services Act", jurisdiction="IE"), ["IE"]
    )
    assert match.node is not None and match.node.id == DSA.id


async def test_a_twin_whose_id_the_capture_does_not_spell_is_only_a_candidate():
    short = held("EU_LAW:EU:DSA", "Digital Services Act")  # another capture keyed it DSA
    match = await ConceptMatcher(Reader([short])).identify(
        eu_capture("DIGITAL_SERVICE_ACTS", "Digital Services Act"), ["EU"]
    )  # the same form, but joining would tell this conversation the words "DSA"
    assert match.node is None
    assert [(s.id, s.reason) for s in match.suggestions] == [("EU_LAW:EU:DSA", "label")]


async def test_no_twin_in_another_member_state_and_no_guess_between_two():
    match = await ConceptMatcher(Reader([UK_SMALL])).identify(
        capture("SMALL_BENEFIT", "small benefit exemption"), ["IE"]
    )
    assert match.node is None
    two = [held("TAX:IE:MOTOR_TAX", "motor tax"), held("TAX:IE:MOTOR_TAXES", "motor taxes")]
    match = await ConceptMatcher(Reader(two)).identify(capture("TAX", "motor tax"), ["IE"])
    assert match.node is None and {s.id for s in match.suggestions} == {n.id for n in two}


async def test_a_eurovoc_preferred_label_in_the_other_language_joins_alternatives_do_not():
    from engine.lexicon import ConceptLexicon

    lexicon = ConceptLexicon.from_eurovoc()
    rate = held("TAX:IE:VAT_RATE", "VAT rate")  # EuroVoc 4392: "VAT rate" / "taux de TVA"
    match = await ConceptMatcher(Reader([rate]), lexicon).identify(
        capture("TAUX_DE_TVA", "taux de TVA"), ["IE"]
    )
    assert match.node is not None and match.node.id == rate.id
    # "road tax" is an alternative label of EuroVoc's vehicle tax: a candidate, both ways round
    motor = held("TAX:IE:MOTOR_TAX", "Motor Tax")
    match = await ConceptMatcher(Reader([motor]), lexicon).identify(
        capture("ROAD_TAX", "road tax"), ["IE"]
    )
    assert match.node is None
    assert [(s.id, s.reason) for s in match.suggestions] == [(motor.id, "synonym")]


async def test_a_second_name_the_data_records_joins_another_captures_concept():
    """seeds/second_names.yaml (ADR 0078): "Working Family Payment" was "Family Income
    Supplement"; the data, not the other conversation, gives this capture the words."""
    fis = held("WELFARE:IE:FAMILY_INCOME_SUPPLEMENT", "Family Income Supplement")
    match = await ConceptMatcher(Reader([fis])).identify(
        capture("WORKING_FAMILY_PAYMENT", "Working Family Payment"), ["IE"]
    )
    assert match.node is not None and match.node.id == fis.id and match.matched_by == "alias"
    # its acronym too, and the other way round
    wfp = held("WELFARE:IE:WORKING_FAMILY_PAYMENT", "Working Family Payment")
    match = await ConceptMatcher(Reader([wfp])).identify(capture("WFP", "WFP"), ["IE"])
    assert match.node is not None and match.node.id == wfp.id


async def test_a_second_name_joins_nothing_in_another_jurisdiction_or_group():
    uk = held("WELFARE:UK:FAMILY_INCOME_SUPPLEMENT", "Family Income Supplement")
    match = await ConceptMatcher(Reader([uk])).identify(
        capture("WORKING_FAMILY_PAYMENT", "Working Family Payment"), ["IE"]
    )
    assert match.node is None  # the group is Ireland's: the UK's FIS (1971-1988) is another
    lpt = held("TAX:IE:LOCAL_PROPERTY_TAX", "Local Property Tax")
    match = await ConceptMatcher(Reader([lpt])).identify(capture("WFP", "WFP"), ["IE"])
    assert match.node is None
    # a name near a second name is not one: "Working Family Payments scheme" adds a word
    fis = held("WELFARE:IE:FAMILY_INCOME_SUPPLEMENT", "Family Income Supplement")
    match = await ConceptMatcher(Reader([fis])).identify(
        capture("WFP_SCHEME", "Working Family Payment scheme"), ["IE"]
    )
    assert match.node is None


async def test_another_captures_kind_of_two_words_or_more_is_one_of_its_forms():
    class2 = held("SOCIAL_INSURANCE:UK:CLASS_2_NIC", "Class 2 National Insurance contributions")
    match = await ConceptMatcher(Reader([class2])).identify(
        capture("CLASS_2_NICS", "Class 2 NICs", "UK"), ["UK"]
    )
    assert match.node is not None and match.node.id == class2.id
    # a one-word kind is no form: "pension" does not join a capture keyed PENSION
    lone = held("PENSIONS:UK:PENSION", "Pension Credit")
    match = await ConceptMatcher(Reader([lone])).identify(capture("P", "pension", "UK"), ["UK"])
    assert match.node is None


def test_an_acts_acronym_with_its_year_is_a_candidate_of_its_name_only():
    """ADR 0078: "DPA 2018" after "Data Protection Act 2018" (no second name recorded) is
    offered for review, never joined; another year is not offered."""
    dpa = held("DATA_PROTECTION:IE:DATA_PROTECTION_ACT_2018", "Data Protection Act 2018")
    assert found("DPA_2018", "DPA 2018", among=[dpa]) == {(dpa.id, FoundBy.INITIALS)}
    assert found("DPA_1988", "DPA 1988", among=[dpa]) == set()


INVALIDITE = held("WELFARE:IE:PENSION_D_INVALIDITE", "pension d'invalidité")


def test_another_captures_concept_spelled_near_is_a_candidate_by_letters_only():
    # another language, no rule names it: letters (ADR 0083, addendum), never a join
    assert found("INVALIDITY_PENSION", "Invalidity Pension", among=[INVALIDITE, MOTOR]) == {
        (INVALIDITE.id, FoundBy.CHAR_NGRAMS)
    }
    # a rule's evidence comes first: no second reason for the same concept
    assert found("MOTOR_TAXE", "Motor-taxe", among=[MOTOR]) == {(MOTOR.id, FoundBy.EDIT_DISTANCE)}
    assert found("CARBON_LEVY", "carbon levy", among=[INVALIDITE, MOTOR, SMALL]) == set()


def test_at_most_three_captures_by_letters_closest_first():
    pensions = [
        held(f"WELFARE:IE:PENSION_D_INVALIDITE_{n}", f"pension d'invalidité {'x' * n}")
        for n in range(1, 6)
    ]
    pairs = [(node, [str(node.properties["pref_label"])]) for node in pensions]
    got = quarantined_candidates("INVALIDITY_PENSION", ["Invalidity Pension"], pairs)
    assert [c.found_by for c in got] == [FoundBy.CHAR_NGRAMS] * 3
    assert [c.score for c in got] == sorted((c.score for c in got), reverse=True)
    assert all(c.score <= 0.8 for c in got)  # weighed below the rules' evidence


async def test_a_capture_near_another_by_letters_is_created_never_joined():
    match = await ConceptMatcher(Reader([INVALIDITE])).identify(
        CapturedConcept(
            domain="WELFARE",
            kind="INVALIDITY_PENSION",
            jurisdiction="IE",
            prefLabel="Invalidity Pension",
        ),
        ["IE"],
    )
    assert match.node is None and match.matched_by == "created"
    assert [(s.id, s.reason) for s in match.suggestions] == [(INVALIDITE.id, "char_ngrams")]
