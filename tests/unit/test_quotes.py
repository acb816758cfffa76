"""Quotes that answer (issue 23): the points and paragraphs of a provision that answer the
question, with their lead-in and operative word; a list is never cut to its first point."""

import pytest

from engine.providers.extractive import best_sentences
from engine.quotes import answering_text, operative_words

pytestmark = pytest.mark.unit

ART_5 = "\n".join([
    "1. The following AI practices shall be prohibited:",
    "(a) the placing on the market of an AI system that deploys subliminal techniques beyond a "
    "person's consciousness;",
    "(b) the use of an AI system that exploits any of the vulnerabilities of a natural person;",
    "(c) the use of AI systems for the evaluation or classification of natural persons based on "
    "their social behaviour;",
    "(f) the use of AI systems to infer emotions of a natural person in the areas of workplace "
    "and education institutions, except for medical or safety reasons;",
    "(g) the use of biometric categorisation systems to deduce race or political opinions;",
    "2. Member States may decide to provide for the possibility to fully or partially authorise "
    "the use of such systems.",
])  # fmt: skip
ART_8 = "\n".join([
    "1. Where point (a) of Article 6(1) applies, in relation to the offer of information society "
    "services directly to a child, the processing of the personal data of a child shall be lawful "
    "where the child is at least 16 years old. Where the child is below the age of 16 years, such "
    "processing shall be lawful only if consent is given by the holder of parental "
    "responsibility over the child.",
    "2. The controller shall make reasonable efforts to verify in such cases that consent is "
    "given by the holder of parental responsibility over the child.",
    "3. Paragraph 1 shall not affect the general contract law of Member States.",
])  # fmt: skip
HEAD = "AI Act Article 5 — Prohibited AI practices"


def test_the_point_that_answers_is_quoted_with_its_lead_in():
    quote = answering_text(ART_5, "Is emotion recognition in the workplace allowed?")
    assert quote is not None
    assert quote.startswith("1. The following AI practices shall be prohibited:")
    assert "(f) the use of AI systems to infer emotions" in quote
    assert "(a)" not in quote and "subliminal" not in quote
    assert operative_words(quote) == "shall be prohibited"


def test_a_question_about_the_whole_list_gets_every_point_not_the_first():
    quote = answering_text(ART_5, "What does Article 5 prohibit?")
    assert quote is not None
    for point in ("(a)", "(b)", "(c)", "(f)", "(g)"):
        assert point in quote, quote


def test_the_paragraph_with_the_age_of_16_is_quoted_for_a_question_about_children():
    quote = answering_text(ART_8, "What are the conditions for a child's consent?")
    assert quote is not None and "16 years" in quote


def test_a_provision_no_part_of_which_matches_is_left_as_it_was():
    assert answering_text(ART_5, "capital of France") is None


def test_the_extractive_provider_keeps_the_lead_in_and_the_point_that_answers():
    question = "Is emotion recognition in the workplace allowed under the AI Act?"
    text = f"{HEAD}: {answering_text(ART_5, question)}"
    quoted = best_sentences(text, question, [text])
    assert "shall be prohibited" in quoted and "infer emotions" in quoted


def test_the_extractive_provider_never_cuts_a_list_to_its_first_point():
    question = "What does Article 5 prohibit?"
    text = f"{HEAD}: {answering_text(ART_5, question)}"
    quoted = best_sentences(text, question, [text])
    assert "(f)" in quoted and "(g)" in quoted, quoted


def test_shortened_points_stay_points_for_the_extractive_provider():
    long_art_5 = ART_5.replace("(b) the use", "(b) " + "the use of a very long text " * 30)
    question = "What does Article 5 prohibit?"
    text = f"{HEAD}: {answering_text(long_art_5, question, limit=600)}"
    quoted = best_sentences(text, question, [text])
    assert "(c)" in quoted and "(g)" in quoted, quoted


ART_83 = "\n".join([
    "2. Administrative fines shall, depending on the circumstances of each individual case, be "
    "imposed in addition to, or instead of, measures referred to in Article 58(2).",
    "3. If a controller or processor intentionally or negligently infringes several provisions, "
    "the total amount of the administrative fine shall not exceed the amount specified for the "
    "gravest infringement.",
    "5. Infringements of the following provisions shall be subject to administrative fines up to "
    "20 000 000 EUR, or in the case of an undertaking, up to 4 % of the total worldwide annual "
    "turnover of the preceding financial year, whichever is higher:",
])  # fmt: skip


def test_a_question_asking_for_an_amount_gets_the_part_that_states_one():
    # Fact set (the GDPR's maximum fine in euro, a known miss): paragraph 2 says "fines" most.
    quote = answering_text(ART_83, "What is the maximum GDPR fine in euro?", 300)
    assert quote is not None and "20 000 000 EUR" in quote, quote
    sentences = best_sentences(f"{HEAD}: {ART_83}", "What is the maximum fine in euro?", [ART_83])
    assert "20 000 000 EUR" in sentences


ART_83_TIERS = "\n".join([
    "4. Infringements of the following provisions shall, in accordance with paragraph 2, be "
    "subject to administrative fines up to 10 000 000 EUR, or in the case of an undertaking, up "
    "to 2 % of the total worldwide annual turnover of the preceding financial year, whichever is "
    "higher:",
    "(a) the obligations of the controller and the processor pursuant to Articles 8, 11, 25 to 39 "
    "and 42 and 43;",
    "(b) the obligations of the certification body pursuant to Articles 42 and 43;",
    "5. Infringements of the following provisions shall, in accordance with paragraph 2, be "
    "subject to administrative fines up to 20 000 000 EUR, or in the case of an undertaking, up "
    "to 4 % of the total worldwide annual turnover of the preceding financial year, whichever is "
    "higher:",
    "(a) the basic principles for processing, including conditions for consent, pursuant to "
    "Articles 5, 6, 7 and 9;",
    "(b) the data subjects' rights pursuant to Articles 12 to 22;",
])  # fmt: skip


def test_every_tier_of_a_fine_is_quoted_when_the_question_names_none():
    # Dev (thr-059): "the maximum GDPR fine in euro" got paragraph 4 (10 000 000 EUR) only: the
    # two tiers' lead-ins say the same words, and the first list was quoted alone.
    question = "What is the maximum GDPR fine in euro?"
    quote = answering_text(ART_83_TIERS, question)
    assert quote is not None and "10 000 000 EUR" in quote and "20 000 000 EUR" in quote, quote
    said = best_sentences(f"GDPR Article 83 — fines: {quote}", question, [quote])
    assert "10 000 000 EUR" in said and "20 000 000 EUR" in said, said


def test_the_tier_whose_point_the_question_names_is_quoted():
    question = "Maximum GDPR fine in euro for the controller's obligations under Articles 25 to 39?"
    quote = answering_text(ART_83_TIERS, question)
    assert quote is not None and "10 000 000 EUR" in quote and "25 to 39" in quote, quote


def test_a_follow_ups_own_words_choose_the_part_not_the_earlier_questions():
    # Dev (fol-538): "And for breaching the other obligations?" after the AI Act's fine for
    # prohibited practices quoted paragraph 3 (prohibited practices) again.
    art_99 = "\n".join([
        "3. Non-compliance with the prohibition of the AI practices referred to in Article 5 shall "
        "be subject to administrative fines of up to EUR 35 000 000.",
        "4. Non-compliance with any of the following provisions related to operators, other than "
        "those laid down in Article 5, shall be subject to administrative fines of up to EUR "
        "15 000 000:",
        "(a) obligations of providers pursuant to Article 16;",
        "(b) obligations of importers pursuant to Article 23;",
    ])  # fmt: skip
    question = (
        "What is the maximum AI Act fine in euro for prohibited practices? "
        "And for breaching the other obligations?"
    )
    aspect = frozenset({"breach", "oblig"})
    quoted = answering_text(art_99, question)
    assert quoted is not None and "35 000 000" in quoted  # no aspect: the earlier question's
    followed = answering_text(art_99, question, aspect=aspect)
    assert followed is not None and "15 000 000" in followed and "35 000 000" not in followed
