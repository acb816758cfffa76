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
