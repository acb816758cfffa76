# ruff: noqa: E501  (one case per line: the table is read and reviewed row by row)
"""Writes the fourth resolution set (issue 24): held out whole, never tuned on.

    .venv/bin/python bench/make_resolution_heldout4.py

Written on 2026-11-27 (session 6), before the third set's misses were read and before any
rule, label or screen changed in that session; committed alone. The third set stops being
held out in that session (its duplicates and misses are analysed by class), so this one takes
its place: run once at the end and reported beside the dev sets, never used to choose a rule.

Sources, independent of the resolver's methods (each case names its own, ``source``):

- ``eurovoc:<id>``: English and French labels of EuroVoc concepts
  (``engine/data/eurovoc_tax_social.json``) naming a concept the seeds hold (VAT 4585,
  personal income tax 1312, corporation tax 1331, capital transfer tax 1324, capital gains
  tax 1323, unemployment insurance 3332, maternity benefit 1399) and neighbouring or narrower
  ones the seeds do not hold (excise duty 1015, sick leave 102, parental leave 105,
  supplementary pension 3362, health insurance 3512, wealth tax 1322);
- ``seeds``: sibling concepts of the seeded ones, named as Citizens Information, Revenue and
  GOV.UK name them (one word or one letter apart: Class 1 / Class 1A NICs, Form 11 / Form 12,
  SA100 / SA800, Maternity Benefit / Parent's Benefit, Personal Allowance / Dividend
  Allowance, IE / UK automatic enrolment; parent and child);
- ``iso3166``: jurisdiction spellings (lower-case codes, alpha-3, names in other languages,
  a constituent country, territories outside the graph's coverage);
- ``legislation``: national laws that transpose or mirror EU law, by their short titles
  (irishstatutebook.ie, legislation.gov.uk), and the consolidation Acts behind seeded taxes;
- ``eurlex``: the EU acts the graph holds, by citation and by their French names.

Gold rule (written before the run): a case's gold is a seeded concept only when the capture
names that concept itself (a synonym, acronym, former name, translation, spelling, or the
citation of the same act). A capture naming something broader, a part or kind, a condition,
a person, a document, an activity or a reform of a seeded concept is a concept of its own
(``new:<group>``): ADR 0060's narrower-concept rule, extended in ADR 0075 to the labels the
session-5 addendum left undecided. ``skip:<reason>`` where nothing may be written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "resolution_heldout4.jsonl"

IE, UK, NI, EU = ["IE"], ["UK"], ["NI"], ["EU"]
OOC = "skip:out_of_coverage"
UNSTATED = "skip:jurisdiction_not_stated"

# (category, source, domain, kind, jurisdiction, prefLabel, altLabels, conversation, gold)
C = tuple[str, str, str, str, str, str, list[str], list[str], str]

CASES: list[C] = [
    # --- EuroVoc labels of seeded concepts, English and French
    ("eurovoc", "eurovoc:4585", "TAX", "VALUE_ADDED_TAX", "UK", "value added tax", [], UK, "TAX:UK:VAT"),
    ("eurovoc", "eurovoc:4585", "TAX", "TAXE_SUR_LA_VALEUR_AJOUTEE", "UK", "taxe sur la valeur ajoutée", [], UK, "TAX:UK:VAT"),
    ("eurovoc", "eurovoc:4585", "TAX", "TVA", "IE", "TVA", [], IE, "TAX:IE:VAT"),
    ("eurovoc", "eurovoc:1312", "TAX", "IMPOT_DES_PERSONNES_PHYSIQUES", "UK", "impôt des personnes physiques", [], UK, "TAX:UK:INCOME_TAX"),
    ("eurovoc", "eurovoc:1331", "TAX", "IMPOT_SUR_LES_SOCIETES", "IE", "impôt sur les sociétés", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc", "eurovoc:1331", "TAX", "IMPOT_DES_PERSONNES_MORALES", "IE", "impôt des personnes morales", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc", "eurovoc:1324", "TAX", "ESTATE_DUTY", "IE", "estate duty", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc", "eurovoc:1324", "TAX", "DROITS_DE_SUCCESSION", "IE", "droits de succession", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc", "eurovoc:1324", "TAX", "IMPOT_SUR_L_HERITAGE", "IE", "impôt sur l'héritage", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc", "eurovoc:1323", "TAX", "IMPOT_SUR_LA_PLUS_VALUE", "IE", "impôt sur la plus-value", [], IE, "TAX:IE:CGT"),
    ("eurovoc", "eurovoc:3332", "WELFARE", "ALLOCATION_DE_CHOMAGE", "IE", "allocation de chômage", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc", "eurovoc:3332", "WELFARE", "UNEMPLOYMENT_BENEFIT", "IE", "unemployment benefit", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc", "eurovoc:1399", "WELFARE", "ALLOCATION_DE_MATERNITE", "IE", "allocation de maternité", [], IE, "WELFARE:IE:MATERNITY_BENEFIT"),
    # EuroVoc's neighbouring and narrower concepts: new, never merged
    ("eurovoc", "eurovoc:1015", "TAX", "EXCISE_DUTY", "IE", "excise duty", [], IE, "new:ie_excise"),
    ("eurovoc", "eurovoc:1015", "TAX", "DROIT_D_ACCISE", "IE", "droit d'accise", [], IE, "new:ie_excise"),
    ("eurovoc", "eurovoc:1015", "TAX", "EXCISE_TAX", "IE", "excise tax", [], IE, "new:ie_excise"),
    ("eurovoc", "eurovoc:102", "WELFARE", "SICK_LEAVE", "IE", "sick leave", [], IE, "new:ie_sick_leave"),
    ("eurovoc", "eurovoc:102", "WELFARE", "CONGE_DE_MALADIE", "IE", "congé de maladie", [], IE, "new:ie_sick_leave"),
    ("eurovoc", "eurovoc:105", "WELFARE", "PARENTAL_LEAVE", "IE", "parental leave", [], IE, "new:ie_parental_leave"),
    ("eurovoc", "eurovoc:105", "WELFARE", "CONGE_PARENTAL", "IE", "congé parental", [], IE, "new:ie_parental_leave"),
    ("eurovoc", "eurovoc:3362", "PENSIONS", "SUPPLEMENTARY_PENSION", "IE", "supplementary pension", [], IE, "new:ie_supplementary_pension"),
    ("eurovoc", "eurovoc:3362", "PENSIONS", "RETRAITE_COMPLEMENTAIRE", "IE", "retraite complémentaire", [], IE, "new:ie_supplementary_pension"),
    ("eurovoc", "eurovoc:3512", "WELFARE", "HEALTH_INSURANCE", "IE", "health insurance", [], IE, "new:ie_health_insurance"),
    ("eurovoc", "eurovoc:1322", "TAX", "WEALTH_TAX", "UK", "wealth tax", [], UK, "new:uk_wealth_tax"),
    ("eurovoc", "eurovoc:1322", "TAX", "IMPOT_SUR_LA_FORTUNE", "UK", "impôt sur la fortune", [], UK, "new:uk_wealth_tax"),
    # --- seeded concepts as the official sites write them
    ("surface", "citizensinformation", "SOCIAL_INSURANCE", "PRSI", "IE", "Pay Related Social Insurance", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("surface", "citizensinformation", "WELFARE", "JOBSEEKERS_ALLOWANCE", "IE", "Jobseekers' Allowance", [], IE, "WELFARE:IE:JOBSEEKERS_ALLOWANCE"),
    ("surface", "revenue", "TAX", "HELP_TO_BUY", "IE", "Help-to-Buy", [], IE, "TAX:IE:HELP_TO_BUY"),
    ("surface", "revenue", "TAX", "CAPITAL_ACQUISITION_TAX", "IE", "Capital Acquisition Tax", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("surface", "revenue", "TAX", "RD_TAX_CREDIT", "IE", "R and D tax credit", [], IE, "TAX:IE:RD_TAX_CREDIT"),
    ("former_name", "revenue", "TAX", "PAYE_TAX_CREDIT", "IE", "PAYE tax credit", [], IE, "TAX:IE:EMPLOYEE_TAX_CREDIT"),
    ("surface", "citizensinformation", "PENSIONS", "STATE_PENSION_CONTRIBUTORY", "IE", "State Pension Contributory", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("surface", "citizensinformation", "PENSIONS", "CONTRIBUTORY_STATE_PENSION", "IE", "Contributory State Pension", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("surface", "citizensinformation", "PENSIONS", "NON_CONTRIBUTORY_STATE_PENSION", "IE", "Non-Contributory State Pension", [], IE, "PENSIONS:IE:STATE_PENSION_NON_CONTRIBUTORY"),
    ("surface", "govuk", "TAX", "VAT", "UK", "Value Added Tax (VAT)", [], UK, "TAX:UK:VAT"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "NATIONAL_INSURANCE_CONTRIBUTION", "UK", "National Insurance contribution", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("surface", "govuk", "TAX", "HIGHER_RATE", "UK", "higher rate of Income Tax", [], UK, "TAX:UK:HIGHER_RATE"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "CLASS_4_NIC", "UK", "Class 4 National Insurance", [], UK, "SOCIAL_INSURANCE:UK:CLASS_4_NIC"),
    ("surface", "govuk", "TAX", "PAYMENT_ON_ACCOUNT", "UK", "payment on account", [], UK, "TAX:UK:PAYMENTS_ON_ACCOUNT"),
    ("surface", "govuk", "PENSIONS", "STATE_PENSION", "UK", "old age pension", [], UK, "PENSIONS:UK:STATE_PENSION"),
    ("surface", "govuk", "TAX", "INCOME_TAX", "UK", "British income tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("surface", "revenue", "TAX", "RETIREMENT_RELIEF_WITHIN_FAMILY", "IE", "retirement relief on disposals within the family", [], IE, "TAX:IE:RETIREMENT_RELIEF_WITHIN_FAMILY"),
    # --- siblings of seeded concepts, one word or one letter apart: new, never merged
    ("sibling", "govuk", "SOCIAL_INSURANCE", "CLASS_1A_NIC", "UK", "Class 1A National Insurance contributions", [], UK, "new:uk_class1a"),
    ("sibling", "govuk", "SOCIAL_INSURANCE", "CLASS_2_NIC", "UK", "Class 2 National Insurance contributions", [], UK, "new:uk_class2"),
    ("sibling", "govuk", "SOCIAL_INSURANCE", "CLASS_3_NIC", "UK", "Class 3 NIC", [], UK, "new:uk_class3"),
    ("sibling", "revenue", "TAX", "FORM_12", "IE", "Form 12", [], IE, "new:ie_form12"),
    ("sibling", "govuk", "TAX", "SA800", "UK", "SA800 partnership tax return", [], UK, "new:uk_sa800"),
    ("sibling", "citizensinformation", "WELFARE", "PARENTS_BENEFIT", "IE", "Parent's Benefit", [], IE, "new:ie_parents_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "HEALTH_AND_SAFETY_BENEFIT", "IE", "Health and Safety Benefit", [], IE, "new:ie_health_safety_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "INJURY_BENEFIT", "IE", "Injury Benefit", [], IE, "new:ie_injury_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "PARTIAL_CAPACITY_BENEFIT", "IE", "Partial Capacity Benefit", [], IE, "new:ie_partial_capacity"),
    ("sibling", "citizensinformation", "WELFARE", "GUARDIANS_PAYMENT", "IE", "Guardian's Payment (Contributory)", [], IE, "new:ie_guardians_payment"),
    ("sibling", "revenue", "TAX", "SINGLE_PERSON_CHILD_CARER_CREDIT", "IE", "Single Person Child Carer Credit", [], IE, "new:ie_spccc"),
    ("sibling", "revenue", "TAX", "DEPENDENT_RELATIVE_TAX_CREDIT", "IE", "Dependent Relative Tax Credit", [], IE, "new:ie_dependent_relative"),
    ("sibling", "revenue", "TAX", "KNOWLEDGE_DEVELOPMENT_BOX", "IE", "Knowledge Development Box", [], IE, "new:ie_kdb"),
    ("sibling", "revenue", "TAX", "CGT_ANNUAL_EXEMPTION", "IE", "CGT annual exemption", [], IE, "new:ie_cgt_annual_exemption"),
    ("sibling", "govuk", "TAX", "DIVIDEND_ALLOWANCE", "UK", "Dividend Allowance", [], UK, "new:uk_dividend_allowance"),
    ("sibling", "govuk", "TAX", "TRADING_ALLOWANCE", "UK", "trading allowance", [], UK, "new:uk_trading_allowance"),
    ("sibling", "govuk", "TAX", "ADDITIONAL_RATE", "UK", "additional rate", [], UK, "new:uk_additional_rate"),
    ("sibling", "govuk", "TAX", "INVESTORS_RELIEF", "UK", "Investors' Relief", [], UK, "new:uk_investors_relief"),
    ("sibling", "govuk", "TAX", "HELP_TO_BUY_ISA", "UK", "Help to Buy ISA", [], UK, "new:uk_htb_isa"),
    ("sibling", "govuk", "TAX", "CHILD_TAX_CREDIT", "UK", "Child Tax Credit", [], UK, "new:uk_child_tax_credit"),
    ("sibling", "govuk", "PENSIONS", "AUTOMATIC_ENROLMENT", "UK", "automatic enrolment", [], UK, "new:uk_auto_enrolment"),
    ("sibling", "govuk", "TAX", "GB_VAT_NUMBER", "UK", "GB VAT number", [], UK, "new:uk_gb_vat_number"),
    # labels ADR 0060 left undecided, by the gold rule: their own concepts, not the seeded one
    ("related", "revenue", "TAX", "CHARGEABLE_PERSON", "IE", "chargeable person", [], IE, "new:ie_chargeable_person"),
    ("related", "revenue", "TAX", "PAYE_MODERNISATION", "IE", "PAYE Modernisation", [], IE, "new:ie_paye_modernisation"),
    ("related", "govuk", "PENSIONS", "QUALIFYING_YEARS", "UK", "qualifying years", [], UK, "new:uk_qualifying_years"),
    ("related", "eurlex", "EU_LAW", "DISTANCE_SALES_OF_GOODS", "EU", "distance selling", [], EU, "new:eu_distance_selling"),
    ("related", "eurlex", "EU_LAW", "DATA_PROTECTION", "EU", "data protection", [], EU, "new:eu_data_protection"),
    # --- new concepts seen again, another conversation, another surface
    ("new_repeat", "citizensinformation", "WELFARE", "PARENTS_BENEFIT", "IE", "Parents Benefit", [], IE, "new:ie_parents_benefit"),
    ("new_repeat", "govuk", "SOCIAL_INSURANCE", "CLASS_2_NICS", "UK", "Class 2 NICs", [], UK, "new:uk_class2"),
    ("new_repeat", "govuk", "SOCIAL_INSURANCE", "CLASS_1A", "GBR", "Class 1A National Insurance", [], UK, "new:uk_class1a"),
    ("new_repeat", "revenue", "TAX", "KDB", "IE", "KDB", ["Knowledge Development Box"], IE, "new:ie_kdb"),
    ("new_repeat", "govuk", "TAX", "DIVIDEND_ALLOWANCE", "United Kingdom", "dividend allowance", [], UK, "new:uk_dividend_allowance"),
    ("new_repeat", "revenue", "TAX", "SPCCC", "IE", "SPCCC", ["Single Person Child Carer Credit"], IE, "new:ie_spccc"),
    # --- national laws that mirror EU law, and the Acts behind seeded taxes: new, never merged
    ("national_law", "legislation", "DATA_PROTECTION", "PECR", "UK", "Privacy and Electronic Communications Regulations 2003", ["PECR"], UK, "new:uk_pecr"),
    ("national_law", "legislation", "PAYMENTS", "PAYMENT_SERVICES_REGULATIONS_2017", "UK", "Payment Services Regulations 2017", [], UK, "new:uk_psr"),
    ("national_law", "legislation", "PAYMENTS", "EU_PAYMENT_SERVICES_REGULATIONS_2018", "IE", "European Union (Payment Services) Regulations 2018", [], IE, "new:ie_psr"),
    ("national_law", "legislation", "TAX", "VALUE_ADDED_TAX_ACT_1994", "UK", "Value Added Tax Act 1994", [], UK, "new:uk_vata"),
    ("national_law", "legislation", "TAX", "TAXES_CONSOLIDATION_ACT_1997", "IE", "Taxes Consolidation Act 1997", [], IE, "new:ie_tca"),
    ("national_law", "legislation", "TAX", "STAMP_DUTIES_CONSOLIDATION_ACT_1999", "IE", "Stamp Duties Consolidation Act 1999", [], IE, "new:ie_sdca"),
    ("national_law", "legislation", "TAX", "CAPITAL_ACQUISITIONS_TAX_CONSOLIDATION_ACT_2003", "IE", "Capital Acquisitions Tax Consolidation Act 2003", [], IE, "new:ie_catca"),
    ("national_law", "legislation", "WELFARE", "SOCIAL_WELFARE_CONSOLIDATION_ACT_2005", "IE", "Social Welfare Consolidation Act 2005", [], IE, "new:ie_swca"),
    ("national_law", "legislation", "DATA_PROTECTION", "DATA_PROTECTION_ACTS_1988_TO_2018", "IE", "Data Protection Acts 1988 to 2018", [], IE, "new:ie_dpa_acts"),
    ("national_law", "legislation", "DATA_PROTECTION", "DATA_USE_AND_ACCESS_ACT_2025", "UK", "Data (Use and Access) Act 2025", [], UK, "new:uk_data_use_access"),
    ("new_repeat", "legislation", "DATA_PROTECTION", "PECR", "UK", "PECR", [], UK, "new:uk_pecr"),
    ("new_repeat", "legislation", "TAX", "TCA_1997", "IE", "TCA 1997", [], IE, "new:ie_tca"),
    ("new_repeat", "legislation", "TAX", "VATA_1994", "UK", "VATA 1994", [], UK, "new:uk_vata"),
    # --- EU acts the graph holds, by citation and in French
    ("eu_act", "eurlex", "EU_LAW", "VAT_DIRECTIVE", "EU", "Directive 2006/112/EC", [], EU, "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"),
    ("eu_act", "eurlex", "EU_LAW", "REGULATION_883_2004", "EU", "Regulation 883/2004", [], EU, "EU_LAW:EU:SOCIAL_SECURITY_COORDINATION"),
    ("eu_act", "eurlex", "EU_LAW", "RGPD", "EU", "RGPD", [], EU, "EU_LAW:EU:GDPR"),
    ("eu_act", "eurlex", "EU_LAW", "GDPR", "IE", "EU General Data Protection Regulation", [], IE, "EU_LAW:EU:GDPR"),
    ("eu_act", "eurlex", "EU_LAW", "REGLEMENT_IA", "EU", "règlement sur l'intelligence artificielle", [], EU, "EU_LAW:EU:AI_ACT"),
    ("eu_act", "eurlex", "EU_LAW", "MOSS", "EU", "Mini One-Stop Shop", [], EU, "EU_LAW:EU:ONE_STOP_SHOP"),
    # --- jurisdiction spellings
    ("jurisdiction", "iso3166", "TAX", "USC", "ie", "USC", [], IE, "TAX:IE:USC"),
    ("jurisdiction", "iso3166", "TAX", "CGT", "irl", "capital gains tax", [], IE, "TAX:IE:CGT"),
    ("jurisdiction", "iso3166", "VEHICLE_REG", "VRT", "Irlande", "VRT", [], IE, "VEHICLE_REG:IE:VRT"),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "England", "Income Tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("jurisdiction", "iso3166", "TAX", "SELF_ASSESSMENT", "gb", "Self Assessment", [], UK, "TAX:UK:SELF_ASSESSMENT"),
    ("jurisdiction", "iso3166", "TAX", "VAT", "Royaume-Uni", "VAT", [], UK, "TAX:UK:VAT"),
    ("jurisdiction", "iso3166", "TAX", "XI_VAT_NUMBER", "Northern Ireland", "XI VAT number", [], NI, "TAX:NI:XI_VAT_NUMBER"),
    ("jurisdiction", "iso3166", "EU_LAW", "ONE_STOP_SHOP", "EUROPEAN UNION", "OSS", [], EU, "EU_LAW:EU:ONE_STOP_SHOP"),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "Isle of Man", "income tax", [], [], OOC),
    ("jurisdiction", "iso3166", "TAX", "VAT", "Jersey", "GST", [], [], OOC),
    ("jurisdiction", "iso3166", "TAX", "VAT", "ESP", "IVA", [], [], OOC),
    ("jurisdiction", "iso3166", "WELFARE", "CHILD_BENEFIT", "Deutschland", "Kindergeld", [], [], OOC),
    ("jurisdiction", "iso3166", "TAX", "CORPORATION_TAX", "Italia", "corporation tax", [], [], OOC),
    # --- no jurisdiction stated in the conversation
    ("unstated", "revenue", "SOCIAL_INSURANCE", "PRSI", "IE", "PRSI", [], [], "SOCIAL_INSURANCE:IE:PRSI"),
    ("unstated", "citizensinformation", "WELFARE", "CHILD_BENEFIT", "IE", "Child Benefit", [], [], UNSTATED),
    ("unstated", "govuk", "SOCIAL_INSURANCE", "CLASS_1A_NIC", "UK", "Class 1A NIC", [], [], UNSTATED),
]  # fmt: skip


def main() -> None:
    rows: list[dict[str, Any]] = []
    for n, (category, source, domain, kind, where, pref, alts, named, gold) in enumerate(CASES, 1):
        concept = {"domain": domain, "kind": kind, "jurisdiction": where, "prefLabel": pref,
                   "altLabels": alts}  # fmt: skip
        rows.append({"id": f"res4-{n:03d}", "category": category, "source": source,
                     "concept": concept, "jurisdictions": named, "gold": gold})  # fmt: skip
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(rows)} cases -> {OUT.relative_to(DATA.parent.parent)}")


if __name__ == "__main__":
    main()
