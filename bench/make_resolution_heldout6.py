# ruff: noqa: E501  (one case per line: the table is read and reviewed row by row)
"""Writes the sixth resolution set (issue 24): held out whole, never tuned on.

    .venv/bin/python bench/make_resolution_heldout6.py

Written on 2026-11-28 (session 8) before any rule, label or screen changed in that session and
committed alone (its sha256 pinned by tests/unit/test_resolution_heldout_sets.py). The fifth set
was scored twice in session 7 and is a dev set from now on; this one takes its place: scored once
on the main it was written against (totals only) and once at the end, never used to choose a
rule, its misses never read while tuning.

Built from sources outside the resolver and outside the earlier sets' generators; its labels were
chosen without running the resolver on them (each case names its source):

- ``eurovoc:<id>``: English and French labels of EuroVoc concepts no earlier set used (social
  security 4050, business tax 4406, tax on employment income 1330, fringe benefit 3556, tax on
  investment income 1328, tax on profits of self-employment 1327, supplementary pension 3362,
  early retirement 3626, non-contributory benefit 7382, social-security benefit 2605, death grant
  1389, parental allowance 7981, parental leave 105, double taxation 504, international tax law
  562, taxable income 3685, basis of tax assessment 2900, artificial intelligence 3030, European
  Data Protection Board c_edee9606, social security law 3359, self-employment 6008, maternity
  benefit 1399 (maternity allowance, birth grant), axle tax 4398, VAT resource 5868, inheritance
  3934, gift 501, unemployment 5974, unemployed person 5986, illness 1754, pension fund
  c_dd52c1e9, transfer of pension rights 4494) -- most are neighbours of a seeded concept and
  must stay new;
- ``citizensinformation`` / ``revenue`` / ``govuk`` / ``informal``: the names the official sites
  and people use for the seeded concepts -- a name with its short form in brackets ("Universal
  Social Charge (USC)"), curly apostrophes, plurals, the definite article, word order, Revenue's
  "standard rate cut-off point" for the standard rate band, "PAYE credit" for the Employee Tax
  Credit, GOV.UK's "High Income Child Benefit tax charge", "CGT annual exemption" -- and
  siblings the sites name beside them (Jobseeker's Transitional Payment, JST, Home Carer Tax
  Credit, Single Person Child Carer Credit, Carer's Allowance, Universal Credit, Maternity
  Allowance, Marriage Allowance, Class 2 and 3 NICs, additional rate, Inheritance Tax and
  corporation tax in the UK, UK workplace auto-enrolment);
- ``iso3166`` / ``constitution``: jurisdiction spellings (pycountry names and codes in other
  cases, French names, "Eire" without its accent, "Great Britain", "U.K."), territories outside
  coverage (Isle of Man, Jersey, Spain, DEU, US), and captures with no jurisdiction stated;
- ``eurlex`` / ``legislation``: EU acts by citation in English and French, their implementing
  and sibling acts, national acts of the same name in two jurisdictions.

Gold rule (unchanged from the fourth and fifth sets): a case's gold is a seeded concept only when
the capture names that concept itself (a synonym, acronym, former name, translation, spelling,
or the citation of the same act). A capture naming something broader, a part or kind, a
condition, a person, a document, an activity or a sibling of a seeded concept is a concept of
its own (``new:<group>``). ``skip:<reason>`` where nothing may be written. With no jurisdiction
stated, a label the graph holds in one jurisdiction only resolves there; anything else is
``skip:jurisdiction_not_stated`` (the capture still carries the model's guess of a jurisdiction,
as in the fifth set: the schema requires one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "resolution_heldout6.jsonl"

IE, UK, NI, EU = ["IE"], ["UK"], ["NI"], ["EU"]
NONE: list[str] = []
OOC = "skip:out_of_coverage"
UNSTATED = "skip:jurisdiction_not_stated"

# (category, source, domain, kind, jurisdiction, prefLabel, altLabels, conversation, gold)
C = tuple[str, str, str, str, str, str, list[str], list[str], str]

CASES: list[C] = [
    # --- EuroVoc labels no earlier set used: a seeded concept's own name
    ("eurovoc", "eurovoc:4050", "SOCIAL_INSURANCE", "NATIONAL_INSURANCE", "UK", "national insurance", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("eurovoc", "eurovoc:1399", "WELFARE", "MATERNITY_BENEFIT", "IE", "maternity benefit", [], IE, "WELFARE:IE:MATERNITY_BENEFIT"),
    # --- EuroVoc neighbours, broader and narrower concepts: new, never merged
    ("eurovoc", "eurovoc:4050", "SOCIAL_INSURANCE", "SOCIAL_SECURITY", "IE", "social security", [], IE, "new:ie_social_security"),
    ("eurovoc", "eurovoc:4050", "SOCIAL_INSURANCE", "SECURITE_SOCIALE", "IE", "sécurité sociale", [], IE, "new:ie_social_security"),
    ("eurovoc", "eurovoc:4050", "SOCIAL_INSURANCE", "SOCIAL_PROTECTION", "IE", "social protection", [], IE, "new:ie_social_security"),
    ("eurovoc", "eurovoc:4406", "TAX", "BUSINESS_TAX", "IE", "business tax", [], IE, "new:ie_business_tax"),
    ("eurovoc", "eurovoc:4406", "TAX", "TAXE_PROFESSIONNELLE", "IE", "taxe professionnelle", [], IE, "new:ie_business_tax"),
    ("eurovoc", "eurovoc:1330", "TAX", "TAX_ON_EMPLOYMENT_INCOME", "IE", "tax on employment income", [], IE, "new:ie_employment_income_tax"),
    ("eurovoc", "eurovoc:1330", "TAX", "IMPOT_SUR_LES_SALAIRES", "IE", "impôt sur les salaires", [], IE, "new:ie_employment_income_tax"),
    ("eurovoc", "eurovoc:1330", "TAX", "TAX_ON_WAGES", "IE", "tax on wages and salaries", [], IE, "new:ie_employment_income_tax"),
    ("eurovoc", "eurovoc:3556", "TAX", "BENEFITS_IN_KIND", "IE", "benefits in kind", [], IE, "new:ie_benefit_in_kind"),
    ("eurovoc", "eurovoc:3556", "TAX", "AVANTAGE_EN_NATURE", "IE", "avantage en nature", [], IE, "new:ie_benefit_in_kind"),
    ("eurovoc", "eurovoc:3556", "TAX", "FRINGE_BENEFIT", "IE", "fringe benefit", [], IE, "new:ie_benefit_in_kind"),
    ("eurovoc", "eurovoc:1328", "TAX", "TAX_ON_INVESTMENT_INCOME", "IE", "tax on investment income", [], IE, "new:ie_investment_income_tax"),
    ("eurovoc", "eurovoc:1328", "TAX", "TAX_ON_UNEARNED_INCOME", "IE", "tax on unearned income", [], IE, "new:ie_investment_income_tax"),
    ("eurovoc", "eurovoc:1327", "TAX", "TAX_ON_SELF_EMPLOYED_PROFITS", "IE", "tax on profits of self-employment", [], IE, "new:ie_self_employed_profits_tax"),
    ("eurovoc", "eurovoc:1327", "TAX", "IMPOT_SUR_LES_BENEFICES", "IE", "impôt sur les bénéfices non commerciaux", [], IE, "new:ie_self_employed_profits_tax"),
    ("eurovoc", "eurovoc:3362", "PENSIONS", "SUPPLEMENTARY_PENSION", "IE", "supplementary pension", [], IE, "new:ie_supplementary_pension"),
    ("eurovoc", "eurovoc:3362", "PENSIONS", "RETRAITE_COMPLEMENTAIRE", "IE", "retraite complémentaire", [], IE, "new:ie_supplementary_pension"),
    ("eurovoc", "eurovoc:3362", "PENSIONS", "PENSION_COMPLEMENTAIRE", "IE", "pension complémentaire", [], IE, "new:ie_supplementary_pension"),
    ("eurovoc", "eurovoc:3626", "PENSIONS", "EARLY_RETIREMENT", "IE", "early retirement", [], IE, "new:ie_early_retirement"),
    ("eurovoc", "eurovoc:3626", "PENSIONS", "PRERETRAITE", "IE", "préretraite", [], IE, "new:ie_early_retirement"),
    ("eurovoc", "eurovoc:7382", "WELFARE", "NON_CONTRIBUTORY_BENEFIT", "IE", "non-contributory benefit", [], IE, "new:ie_non_contributory_benefit"),
    ("eurovoc", "eurovoc:7382", "WELFARE", "PRESTATION_NON_CONTRIBUTIVE", "IE", "prestation non contributive", [], IE, "new:ie_non_contributory_benefit"),
    ("eurovoc", "eurovoc:2605", "WELFARE", "SOCIAL_SECURITY_BENEFIT", "IE", "social-security benefit", [], IE, "new:ie_social_security_benefit"),
    ("eurovoc", "eurovoc:2605", "WELFARE", "PRESTATION_SOCIALE", "IE", "prestation sociale", [], IE, "new:ie_social_security_benefit"),
    ("eurovoc", "eurovoc:1389", "WELFARE", "DEATH_GRANT", "IE", "death grant", [], IE, "new:ie_death_grant"),
    ("eurovoc", "eurovoc:1389", "WELFARE", "ALLOCATION_DE_DECES", "IE", "allocation de décès", [], IE, "new:ie_death_grant"),
    ("eurovoc", "eurovoc:7981", "WELFARE", "PARENTAL_ALLOWANCE", "IE", "parental allowance", [], IE, "new:ie_parental_allowance"),
    ("eurovoc", "eurovoc:7981", "WELFARE", "ALLOCATION_PARENTALE", "IE", "allocation parentale", [], IE, "new:ie_parental_allowance"),
    ("eurovoc", "eurovoc:105", "EMPLOYMENT", "PARENTAL_LEAVE", "IE", "parental leave", [], IE, "new:ie_parental_leave"),
    ("eurovoc", "eurovoc:105", "EMPLOYMENT", "CONGE_PARENTAL", "IE", "congé parental", [], IE, "new:ie_parental_leave"),
    ("eurovoc", "eurovoc:504", "TAX", "DOUBLE_TAXATION", "IE", "double taxation", [], IE, "new:ie_double_taxation"),
    ("eurovoc", "eurovoc:504", "TAX", "DOUBLE_IMPOSITION", "IE", "double imposition", [], IE, "new:ie_double_taxation"),
    ("eurovoc", "eurovoc:562", "TAX", "INTERNATIONAL_TAX_LAW", "IE", "international tax law", [], IE, "new:ie_international_tax_law"),
    ("eurovoc", "eurovoc:3685", "TAX", "TAXABLE_INCOME", "UK", "taxable income", [], UK, "new:uk_taxable_income"),
    ("eurovoc", "eurovoc:3685", "TAX", "REVENU_IMPOSABLE", "UK", "revenu imposable", [], UK, "new:uk_taxable_income"),
    ("eurovoc", "eurovoc:2900", "TAX", "BASIS_OF_ASSESSMENT", "IE", "basis of tax assessment", [], IE, "new:ie_tax_base"),
    ("eurovoc", "eurovoc:2900", "TAX", "ASSIETTE_DE_L_IMPOT", "IE", "assiette de l'impôt", [], IE, "new:ie_tax_base"),
    ("eurovoc", "eurovoc:3030", "EU_LAW", "ARTIFICIAL_INTELLIGENCE", "EU", "artificial intelligence", [], EU, "new:eu_artificial_intelligence"),
    ("eurovoc", "eurovoc:3030", "EU_LAW", "INTELLIGENCE_ARTIFICIELLE", "EU", "intelligence artificielle", [], EU, "new:eu_artificial_intelligence"),
    ("eurovoc", "eurovoc:c_edee9606", "EU_LAW", "EDPB", "EU", "European Data Protection Board", [], EU, "new:eu_edpb"),
    ("eurovoc", "eurovoc:c_edee9606", "EU_LAW", "CEPD", "EU", "comité européen de la protection des données", [], EU, "new:eu_edpb"),
    ("eurovoc", "eurovoc:c_edee9606", "EU_LAW", "EDPB", "EU", "EDPB", [], EU, "new:eu_edpb"),
    ("eurovoc", "eurovoc:3359", "SOCIAL_INSURANCE", "SOCIAL_SECURITY_LAW", "IE", "social security law", [], IE, "new:ie_social_security_law"),
    ("eurovoc", "eurovoc:6008", "TAX", "SELF_EMPLOYMENT", "IE", "self-employment", [], IE, "new:ie_self_employment"),
    ("eurovoc", "eurovoc:6008", "TAX", "ACTIVITE_NON_SALARIEE", "IE", "activité non salariée", [], IE, "new:ie_self_employment"),
    ("eurovoc", "eurovoc:1399", "WELFARE", "MATERNITY_ALLOWANCE", "UK", "maternity allowance", [], UK, "new:uk_maternity_allowance"),
    ("eurovoc", "eurovoc:1399", "WELFARE", "BIRTH_GRANT", "IE", "birth grant", [], IE, "new:ie_birth_grant"),
    ("eurovoc", "eurovoc:4398", "TAX", "AXLE_TAX", "UK", "axle tax", [], UK, "new:uk_axle_tax"),
    ("eurovoc", "eurovoc:4398", "TAX", "HGV_ROAD_TAX", "UK", "heavy goods vehicle road tax", [], UK, "new:uk_axle_tax"),
    ("eurovoc", "eurovoc:5868", "EU_LAW", "VAT_RESOURCE", "EU", "VAT resource", [], EU, "new:eu_vat_resource"),
    ("eurovoc", "eurovoc:5868", "EU_LAW", "RESSOURCE_TVA", "EU", "ressource TVA", [], EU, "new:eu_vat_resource"),
    ("eurovoc", "eurovoc:3934", "TAX", "INHERITANCE", "IE", "inheritance", [], IE, "new:ie_inheritance"),
    ("eurovoc", "eurovoc:501", "TAX", "GIFT", "IE", "gift", [], IE, "new:ie_gift"),
    ("eurovoc", "eurovoc:5974", "WELFARE", "UNEMPLOYMENT", "IE", "unemployment", [], IE, "new:ie_unemployment"),
    ("eurovoc", "eurovoc:5974", "WELFARE", "CHOMAGE", "IE", "chômage", [], IE, "new:ie_unemployment"),
    ("eurovoc", "eurovoc:5986", "WELFARE", "UNEMPLOYED_PERSON", "IE", "unemployed person", [], IE, "new:ie_unemployed_person"),
    ("eurovoc", "eurovoc:1754", "WELFARE", "ILLNESS", "IE", "illness", [], IE, "new:ie_illness"),
    ("eurovoc", "eurovoc:c_dd52c1e9", "PENSIONS", "PENSION_FUND", "IE", "pension fund", [], IE, "new:ie_pension_fund"),
    ("eurovoc", "eurovoc:c_dd52c1e9", "PENSIONS", "FONDS_DE_RETRAITE", "IE", "fonds de retraite", [], IE, "new:ie_pension_fund"),
    ("eurovoc", "eurovoc:4494", "PENSIONS", "PENSION_TRANSFER", "IE", "transfer of pension rights", [], IE, "new:ie_pension_transfer"),
    # --- the names official sites and people use for seeded concepts
    ("short_form", "citizensinformation", "WELFARE", "JOBSEEKERS_BENEFIT", "IE", "Jobseeker's Benefit (JB)", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("surface", "citizensinformation", "WELFARE", "JOBSEEKERS_ALLOWANCE", "IE", "Jobseeker’s Allowance", [], IE, "WELFARE:IE:JOBSEEKERS_ALLOWANCE"),
    ("short_form", "citizensinformation", "SOCIAL_INSURANCE", "PRSI", "IE", "Pay Related Social Insurance (PRSI)", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("short_form", "revenue", "TAX", "USC", "IE", "Universal Social Charge (USC)", [], IE, "TAX:IE:USC"),
    ("short_form", "revenue", "TAX", "CAT", "IE", "Capital Acquisitions Tax (CAT)", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("short_form", "revenue", "TAX", "CGT", "IE", "Capital Gains Tax (CGT)", [], IE, "TAX:IE:CGT"),
    ("short_form", "revenue", "TAX", "HELP_TO_BUY", "IE", "Help to Buy (HTB) incentive", [], IE, "TAX:IE:HELP_TO_BUY"),
    ("surface", "informal", "TAX", "HELP_TO_BUY", "IE", "Help-to-Buy", [], IE, "TAX:IE:HELP_TO_BUY"),
    ("short_form", "revenue", "TAX", "RD_TAX_CREDIT", "IE", "Research and Development (R&D) Tax Credit", [], IE, "TAX:IE:RD_TAX_CREDIT"),
    ("informal", "informal", "TAX", "RD_CREDIT", "IE", "R&D credit", [], IE, "TAX:IE:RD_TAX_CREDIT"),
    ("surface", "revenue", "TAX", "RENT_TAX_CREDIT", "IE", "Rent Tax Credit", [], IE, "TAX:IE:RENT_TAX_CREDIT"),
    ("surface", "informal", "TAX", "RENT_TAX_CREDIT", "IE", "renter's tax credit", [], IE, "TAX:IE:RENT_TAX_CREDIT"),
    ("former_name", "revenue", "TAX", "PAYE_CREDIT", "IE", "PAYE credit", [], IE, "TAX:IE:EMPLOYEE_TAX_CREDIT"),
    ("surface", "revenue", "TAX", "EMPLOYEE_TAX_CREDIT", "IE", "Employee Tax Credit", [], IE, "TAX:IE:EMPLOYEE_TAX_CREDIT"),
    ("surface", "informal", "TAX", "PAY_AND_FILE", "IE", "pay & file", [], IE, "TAX:IE:SELF_ASSESSMENT"),
    ("surface", "revenue", "TAX", "SELF_ASSESSMENT", "IE", "self assessment", [], IE, "TAX:IE:SELF_ASSESSMENT"),
    ("surface", "govuk", "TAX", "SELF_ASSESSMENT", "UK", "Self-Assessment", [], UK, "TAX:UK:SELF_ASSESSMENT"),
    ("surface", "govuk", "TAX", "SA100", "UK", "SA100 form", [], UK, "TAX:UK:SA100"),
    ("surface", "revenue", "TAX", "FORM_11", "IE", "Form 11 return", [], IE, "TAX:IE:FORM_11"),
    ("surface", "informal", "TAX", "FORM_11", "IE", "Form11", [], IE, "TAX:IE:FORM_11"),
    ("informal", "informal", "TAX", "PRELIMINARY_TAX", "IE", "prelim tax", [], IE, "TAX:IE:PRELIMINARY_TAX"),
    ("surface", "govuk", "TAX", "PAYMENTS_ON_ACCOUNT", "UK", "payment on account", [], UK, "TAX:UK:PAYMENTS_ON_ACCOUNT"),
    ("surface", "govuk", "TAX", "HICBC", "UK", "High Income Child Benefit tax charge", [], UK, "TAX:UK:HIGH_INCOME_CHILD_BENEFIT_CHARGE"),
    ("informal", "informal", "TAX", "CHILD_BENEFIT_CHARGE", "UK", "child benefit tax charge", [], UK, "TAX:UK:HIGH_INCOME_CHILD_BENEFIT_CHARGE"),
    ("informal", "informal", "TAX", "CGT_ANNUAL_EXEMPTION", "UK", "CGT annual exemption", [], UK, "TAX:UK:CGT_ANNUAL_EXEMPT_AMOUNT"),
    ("short_form", "govuk", "TAX", "ANNUAL_EXEMPT_AMOUNT", "UK", "Annual Exempt Amount (AEA)", [], UK, "TAX:UK:CGT_ANNUAL_EXEMPT_AMOUNT"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "CLASS_1", "UK", "Class 1 National Insurance", [], UK, "SOCIAL_INSURANCE:UK:CLASS_1_NIC"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "CLASS_1", "UK", "Class 1 NICs", [], UK, "SOCIAL_INSURANCE:UK:CLASS_1_NIC"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "CLASS_4", "UK", "Class 4 contributions", [], UK, "SOCIAL_INSURANCE:UK:CLASS_4_NIC"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "CLASS_4", "UK", "Class 4 National Insurance", [], UK, "SOCIAL_INSURANCE:UK:CLASS_4_NIC"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "NIC", "UK", "NIC", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "NATIONAL_INSURANCE", "UK", "National Insurance contribution", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("surface", "govuk", "TAX", "BASIC_RATE", "UK", "basic rate of tax", [], UK, "TAX:UK:BASIC_RATE"),
    ("surface", "govuk", "TAX", "HIGHER_RATE", "UK", "higher rate of tax", [], UK, "TAX:UK:HIGHER_RATE"),
    ("surface", "govuk", "TAX", "PERSONAL_ALLOWANCE", "UK", "personal allowances", [], UK, "TAX:UK:PERSONAL_ALLOWANCE"),
    ("former_name", "revenue", "TAX", "SRCOP", "IE", "standard rate cut-off point", [], IE, "TAX:IE:STANDARD_RATE_BAND"),
    ("acronym", "revenue", "TAX", "SRCOP", "IE", "SRCOP", [], IE, "TAX:IE:STANDARD_RATE_BAND"),
    ("informal", "revenue", "TAX", "CT_TRADING_RATE", "IE", "12.5% corporation tax rate", [], IE, "TAX:IE:CORPORATION_TAX_TRADING_RATE"),
    ("surface", "revenue", "TAX", "CT_TRADING_RATE", "IE", "trading rate of corporation tax", [], IE, "TAX:IE:CORPORATION_TAX_TRADING_RATE"),
    ("short_form", "revenue", "TAX", "RETIREMENT_RELIEF", "IE", "retirement relief (CGT)", [], IE, "TAX:IE:RETIREMENT_RELIEF"),
    ("surface", "revenue", "TAX", "ENTREPRENEUR_RELIEF", "IE", "Entrepreneur Relief", [], IE, "TAX:IE:ENTREPRENEUR_RELIEF"),
    ("short_form", "govuk", "TAX", "BADR", "UK", "Business Asset Disposal Relief (BADR)", [], UK, "TAX:UK:BUSINESS_ASSET_DISPOSAL_RELIEF"),
    ("surface", "govuk", "TAX", "VAT", "UK", "V.A.T.", [], UK, "TAX:UK:VAT"),
    ("surface", "citizensinformation", "TAX", "USC", "IE", "universal social charges", [], IE, "TAX:IE:USC"),
    ("surface", "informal", "WELFARE", "JOBSEEKERS_BENEFIT", "IE", "JobSeekers Benefit", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("surface", "informal", "WELFARE", "JOBSEEKERS_ALLOWANCE", "IE", "job-seeker's allowance", [], IE, "WELFARE:IE:JOBSEEKERS_ALLOWANCE"),
    ("surface", "citizensinformation", "WELFARE", "ILLNESS_BENEFIT", "IE", "Illness benefits", [], IE, "WELFARE:IE:ILLNESS_BENEFIT"),
    ("surface", "citizensinformation", "WELFARE", "MATERNITY_BENEFIT", "IE", "maternity benefits", [], IE, "WELFARE:IE:MATERNITY_BENEFIT"),
    ("informal", "informal", "WELFARE", "CHILD_BENEFIT", "IE", "the children's allowance", [], IE, "WELFARE:IE:CHILD_BENEFIT"),
    ("informal", "informal", "PENSIONS", "STATE_PENSION", "IE", "the old age pension", [], IE, "PENSIONS:IE:STATE_PENSION"),
    ("word_order", "citizensinformation", "PENSIONS", "STATE_PENSION_CONTRIBUTORY", "IE", "contributory State Pension", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("surface", "citizensinformation", "PENSIONS", "STATE_PENSION_CONTRIBUTORY", "IE", "State Pension Contributory", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("word_order", "citizensinformation", "PENSIONS", "STATE_PENSION_NON_CONTRIBUTORY", "IE", "non-contributory state pension", [], IE, "PENSIONS:IE:STATE_PENSION_NON_CONTRIBUTORY"),
    ("surface", "citizensinformation", "PENSIONS", "AUTO_ENROLMENT", "IE", "auto enrolment", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("surface", "citizensinformation", "PENSIONS", "AUTO_ENROLMENT", "IE", "automatic enrolment", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("surface", "informal", "PENSIONS", "MY_FUTURE_FUND", "IE", "MyFutureFund", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("surface", "citizensinformation", "WELFARE", "TREATMENT_BENEFIT", "IE", "treatment benefits", [], IE, "WELFARE:IE:TREATMENT_BENEFIT"),
    ("surface", "revenue", "TAX", "DTC", "IE", "Ireland–United Kingdom Double Taxation Convention", [], IE, "TAX:IE:IE_UK_DOUBLE_TAXATION_CONVENTION"),
    ("word_order", "informal", "TAX", "DTC", "IE", "UK Ireland tax treaty", [], IE, "TAX:IE:IE_UK_DOUBLE_TAXATION_CONVENTION"),
    ("short_form", "eurlex", "EU_LAW", "OSS", "EU", "One Stop Shop (OSS)", [], EU, "EU_LAW:EU:ONE_STOP_SHOP"),
    ("short_form", "eurlex", "EU_LAW", "AI_ACT", "EU", "Artificial Intelligence Act (AI Act)", [], EU, "EU_LAW:EU:AI_ACT"),
    ("surface", "eurlex", "EU_LAW", "SSC", "EU", "Coordination of Social Security Systems", [], EU, "EU_LAW:EU:SOCIAL_SECURITY_COORDINATION"),
    # --- EU acts by citation; implementing and sibling acts stay new
    ("eu_act", "eurlex", "EU_LAW", "VAT_DIRECTIVE", "EU", "Directive 2006/112", [], EU, "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"),
    ("eu_act", "eurlex", "EU_LAW", "AI_ACT", "EU", "Regulation (EU) 2024/1689", [], EU, "EU_LAW:EU:AI_ACT"),
    ("eu_act", "eurlex", "EU_LAW", "RGPD", "EU", "Règlement (UE) 2016/679", [], EU, "EU_LAW:EU:GDPR"),
    ("eu_act", "eurlex", "EU_LAW", "REG_987", "EU", "Regulation (EC) No 987/2009", [], EU, "new:eu_reg_987_2009"),
    ("eu_act", "eurlex", "EU_LAW", "VAT_IMPLEMENTING_REGULATION", "EU", "Council Implementing Regulation (EU) No 282/2011", [], EU, "new:eu_vat_implementing_regulation"),
    ("eu_act", "eurlex", "EU_LAW", "EPRIVACY", "EU", "ePrivacy Directive", [], EU, "new:eu_eprivacy"),
    ("eu_act", "eurlex", "EU_LAW", "EPRIVACY", "EU", "Directive 2002/58/EC", [], EU, "new:eu_eprivacy"),
    ("eu_act", "eurlex", "EU_LAW", "NIS2", "EU", "NIS 2 Directive", [], EU, "new:eu_nis2"),
    ("eu_act", "eurlex", "EU_LAW", "NIS2", "EU", "Directive (EU) 2022/2555", [], EU, "new:eu_nis2"),
    ("eu_act", "eurlex", "EU_LAW", "DSA", "EU", "Digital Services Act", [], EU, "new:eu_dsa"),
    ("eu_act", "eurlex", "EU_LAW", "DSA", "EU", "DSA", [], EU, "new:eu_dsa"),
    ("eu_act", "eurlex", "EU_LAW", "DATA_ACT", "EU", "Data Act", [], EU, "new:eu_data_act"),
    ("eu_act", "eurlex", "EU_LAW", "UNION_OSS", "EU", "Union OSS", [], EU, "new:eu_union_oss"),
    ("eu_act", "eurlex", "EU_LAW", "NON_UNION_SCHEME", "EU", "non-Union scheme", [], EU, "new:eu_non_union_scheme"),
    ("national_law", "irishstatutebook", "DATA_PROTECTION", "DPA_2018", "IE", "Data Protection Act 2018", [], IE, "new:ie_dpa_2018"),
    ("national_law", "legislation", "DATA_PROTECTION", "DPA_2018", "UK", "Data Protection Act 2018", [], UK, "new:uk_dpa_2018"),
    # --- siblings the official sites name beside seeded concepts: new, never merged
    ("sibling", "citizensinformation", "WELFARE", "JST", "IE", "Jobseeker's Transitional Payment", [], IE, "new:ie_jst"),
    ("sibling", "citizensinformation", "WELFARE", "JST", "IE", "JST", [], IE, "new:ie_jst"),
    ("sibling", "citizensinformation", "WELFARE", "ONE_PARENT_FAMILY_PAYMENT", "IE", "One-Parent Family Payment", [], IE, "new:ie_ofp"),
    ("sibling", "citizensinformation", "WELFARE", "CARERS_ALLOWANCE", "IE", "Carer's Allowance", [], IE, "new:ie_carers_allowance"),
    ("sibling", "citizensinformation", "WELFARE", "CARERS_ALLOWANCE", "IE", "Carer's Allowance", [], IE, "new:ie_carers_allowance"),
    ("sibling", "citizensinformation", "WELFARE", "CARERS_BENEFIT", "IE", "Carer's Benefit", [], IE, "new:ie_carers_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "PATERNITY_BENEFIT", "IE", "Paternity Benefit", [], IE, "new:ie_paternity_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "ADOPTIVE_BENEFIT", "IE", "Adoptive Benefit", [], IE, "new:ie_adoptive_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "INVALIDITY_PENSION", "IE", "Invalidity Pension", [], IE, "new:ie_invalidity_pension"),
    ("sibling", "citizensinformation", "WELFARE", "HEALTH_AND_SAFETY_BENEFIT", "IE", "Health and Safety Benefit", [], IE, "new:ie_health_safety_benefit"),
    ("sibling", "revenue", "TAX", "HOME_CARER_TAX_CREDIT", "IE", "Home Carer Tax Credit", [], IE, "new:ie_home_carer_credit"),
    ("sibling", "revenue", "TAX", "HOME_CARER_TAX_CREDIT", "IE", "home carer's tax credit", [], IE, "new:ie_home_carer_credit"),
    ("sibling", "revenue", "TAX", "SPCCC", "IE", "Single Person Child Carer Credit", [], IE, "new:ie_spccc"),
    ("sibling", "revenue", "TAX", "SPCCC", "IE", "SPCCC", [], IE, "new:ie_spccc"),
    ("sibling", "revenue", "TAX", "EARNED_INCOME_TAX_CREDIT", "IE", "Earned Income Tax Credit", [], IE, "new:ie_earned_income_credit"),
    ("sibling", "revenue", "TAX", "PERSONAL_TAX_CREDIT", "IE", "Personal Tax Credit", [], IE, "new:ie_personal_tax_credit"),
    ("sibling", "revenue", "TAX", "RENT_A_ROOM_RELIEF", "IE", "Rent-a-Room Relief", [], IE, "new:ie_rent_a_room"),
    ("sibling", "citizensinformation", "TAX", "LPT", "IE", "Local Property Tax (LPT)", [], IE, "new:ie_lpt"),
    ("sibling", "citizensinformation", "TAX", "LPT", "IE", "LPT", [], IE, "new:ie_lpt"),
    ("sibling", "govuk", "WELFARE", "UNIVERSAL_CREDIT", "UK", "Universal Credit", [], UK, "new:uk_universal_credit"),
    ("sibling", "govuk", "WELFARE", "UNIVERSAL_CREDIT", "UK", "universal credit", [], UK, "new:uk_universal_credit"),
    ("sibling", "govuk", "WELFARE", "CHILD_TAX_CREDIT", "UK", "Child Tax Credit", [], UK, "new:uk_child_tax_credit"),
    ("sibling", "govuk", "WELFARE", "CARERS_ALLOWANCE", "UK", "Carer's Allowance", [], UK, "new:uk_carers_allowance"),
    ("sibling", "govuk", "TAX", "MARRIAGE_ALLOWANCE", "UK", "Marriage Allowance", [], UK, "new:uk_marriage_allowance"),
    ("sibling", "govuk", "TAX", "BLIND_PERSONS_ALLOWANCE", "UK", "Blind Person's Allowance", [], UK, "new:uk_blind_persons_allowance"),
    ("sibling", "govuk", "TAX", "DIVIDEND_ALLOWANCE", "UK", "Dividend Allowance", [], UK, "new:uk_dividend_allowance"),
    ("sibling", "govuk", "SOCIAL_INSURANCE", "CLASS_2_NIC", "UK", "Class 2 National Insurance contributions", [], UK, "new:uk_class_2_nic"),
    ("sibling", "govuk", "SOCIAL_INSURANCE", "CLASS_3_NIC", "UK", "Class 3 NIC", [], UK, "new:uk_class_3_nic"),
    ("sibling", "govuk", "SOCIAL_INSURANCE", "CLASS_1A_NIC", "UK", "Class 1A National Insurance", [], UK, "new:uk_class_1a_nic"),
    ("sibling", "govuk", "TAX", "ADDITIONAL_RATE", "UK", "additional rate", [], UK, "new:uk_additional_rate"),
    ("sibling", "govuk", "TAX", "STARTING_RATE_FOR_SAVINGS", "UK", "starting rate for savings", [], UK, "new:uk_starting_rate_savings"),
    ("jurisdiction_trap", "govuk", "TAX", "INHERITANCE_TAX", "UK", "Inheritance Tax", [], UK, "new:uk_inheritance_tax"),
    ("jurisdiction_trap", "govuk", "TAX", "CORPORATION_TAX", "UK", "corporation tax", [], UK, "new:uk_corporation_tax"),
    ("jurisdiction_trap", "govuk", "TAX", "STAMP_DUTY", "UK", "stamp duty", [], UK, "new:uk_stamp_duty"),
    ("jurisdiction_trap", "govuk", "PENSIONS", "AUTO_ENROLMENT", "UK", "auto-enrolment", [], UK, "new:uk_auto_enrolment"),
    ("jurisdiction_trap", "govuk", "TAX", "PAYE", "UK", "PAYE", [], UK, "new:uk_paye"),
    ("sibling", "revenue", "TAX", "EMERGENCY_TAX", "IE", "emergency tax", [], IE, "new:ie_emergency_tax"),
    ("sibling", "revenue", "TAX", "PAYE_MODERNISATION", "IE", "PAYE Modernisation", [], IE, "new:ie_paye_modernisation"),
    ("sibling", "revenue", "TAX", "USC_SURCHARGE", "IE", "USC surcharge", [], IE, "new:ie_usc_surcharge"),
    ("sibling", "citizensinformation", "SOCIAL_INSURANCE", "PRSI_CLASS_S", "IE", "PRSI Class S", [], IE, "new:ie_prsi_class_s"),
    ("sibling", "citizensinformation", "PENSIONS", "WIDOWS_PENSION", "IE", "Widow's, Widower's or Surviving Civil Partner's (Contributory) Pension", [], IE, "new:ie_widows_pension"),
    # --- jurisdiction spellings of seeded concepts
    ("jurisdiction", "iso3166", "TAX", "VAT", "IRL", "VAT", [], IE, "TAX:IE:VAT"),
    ("jurisdiction", "iso3166", "TAX", "USC", "Eire", "USC", [], IE, "TAX:IE:USC"),
    ("jurisdiction", "iso3166", "SOCIAL_INSURANCE", "PRSI", "Republic of Ireland", "PRSI", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("jurisdiction", "iso3166", "TAX", "VAT", "Irlande", "Value-Added Tax", [], IE, "TAX:IE:VAT"),
    ("jurisdiction", "iso3166", "TAX", "CGT", "ie", "capital gains tax", [], IE, "TAX:IE:CGT"),
    ("jurisdiction", "iso3166", "WELFARE", "CHILD_BENEFIT", "Republic of Ireland", "child benefit", [], IE, "WELFARE:IE:CHILD_BENEFIT"),
    ("jurisdiction", "iso3166", "TAX", "VAT", "GBR", "VAT", [], UK, "TAX:UK:VAT"),
    ("jurisdiction", "iso3166", "WELFARE", "CHILD_BENEFIT", "Great Britain", "Child Benefit", [], UK, "WELFARE:UK:CHILD_BENEFIT"),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "U.K.", "income tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("jurisdiction", "iso3166", "TAX", "CGT", "United Kingdom of Great Britain and Northern Ireland", "Capital Gains Tax", [], UK, "TAX:UK:CGT"),
    ("jurisdiction", "iso3166", "PENSIONS", "STATE_PENSION", "Royaume-Uni", "State Pension", [], UK, "PENSIONS:UK:STATE_PENSION"),
    ("jurisdiction", "iso3166", "TAX", "XI_VAT_NUMBER", "Northern Ireland", "XI VAT number", [], NI, "TAX:NI:XI_VAT_NUMBER"),
    ("jurisdiction", "iso3166", "EU_LAW", "GDPR", "European Union", "GDPR", [], EU, "EU_LAW:EU:GDPR"),
    ("jurisdiction", "iso3166", "EU_LAW", "AI_ACT", "E.U.", "AI Act", [], EU, "EU_LAW:EU:AI_ACT"),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "Isle of Man", "income tax", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "GST", "Jersey", "GST", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "IVA", "Spain", "IVA", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "DEU", "Einkommensteuer", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "CGT", "US", "capital gains tax", [], NONE, OOC),
    # --- no jurisdiction stated in the conversation
    ("unstated", "revenue", "TAX", "USC", "IE", "USC", [], NONE, "TAX:IE:USC"),
    ("unstated", "govuk", "TAX", "BADR", "UK", "BADR", [], NONE, "TAX:UK:BUSINESS_ASSET_DISPOSAL_RELIEF"),
    ("unstated", "revenue", "TAX", "FORM_11", "IE", "Form 11", [], NONE, "TAX:IE:FORM_11"),
    ("unstated", "govuk", "TAX", "SA100", "UK", "SA100", [], NONE, "TAX:UK:SA100"),
    ("unstated", "revenue", "TAX", "VAT", "IE", "VAT", [], NONE, UNSTATED),
    ("unstated", "govuk", "WELFARE", "CHILD_BENEFIT", "UK", "Child Benefit", [], NONE, UNSTATED),
    ("unstated", "revenue", "TAX", "INCOME_TAX", "IE", "income tax", [], NONE, UNSTATED),
]  # fmt: skip


def main() -> None:
    rows: list[dict[str, Any]] = []
    for n, (category, source, domain, kind, where, pref, alts, named, gold) in enumerate(CASES, 1):
        concept = {"domain": domain, "kind": kind, "jurisdiction": where, "prefLabel": pref,
                   "altLabels": alts}  # fmt: skip
        rows.append({"id": f"res6-{n:03d}", "category": category, "source": source,
                     "concept": concept, "jurisdictions": named, "gold": gold})  # fmt: skip
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(rows)} cases -> {OUT.relative_to(DATA.parent.parent)}")


if __name__ == "__main__":
    main()
