# ruff: noqa: E501  (one case per line: the table is read and reviewed row by row)
"""Writes the seventh resolution set (issue 24): held out whole, never tuned on.

    .venv/bin/python bench/make_resolution_heldout7.py

Written on 2026-11-28 (session 9) before any rule, label or screen changed in that session and
committed alone (its sha256 pinned by tests/unit/test_resolution_heldout_sets.py). The sixth set
stays held out beside it; both are scored on the main they were written against (totals only)
and once at the end, never used to choose a rule, their misses never read while tuning.

Built from sources other than the sixth set's and outside the resolver and the seeds' labels;
each case names its source, and its gold was chosen from the source, not by running the
resolver or reading the seeds' label lists:

- ``eurovoc:<id>``: EuroVoc's *non-preferred* terms (``skos:altLabel``, English and French) of
  the taxation and social-questions microthesauri (``/work/shared/data/eurovoc``), where the
  sixth set used preferred labels: VAT 4585, corporation tax 1331, stamp duty 4401, capital
  transfer tax 1324, tax on income 1326, unemployment insurance 3332, social-security
  contribution 250, health insurance 3512, disability insurance 3412, supplementary pension 3362
  (SERP), survivor's benefit 2601, family benefit 2604, tax relief 365, tax rebate 7351, vehicle
  tax 4409, excise duty 1015, fuel tax 4407, business tax 4406, tax convention 3261,
  social-security harmonisation 4028, tax harmonisation 1234, tax authorities 57, parental
  allowance 7981, aid to disadvantaged groups 826, occupational accident insurance 3249, care
  of the disabled 4209, pension scheme 3751, health expenditure 3365 -- a term naming the
  seeded concept itself is gold for it; a broader, narrower or sibling term stays new;
- ``policyengine``: the parameter labels of the PolicyEngine Ireland model
  (``/work/shared/data/ireland/policyengine-ie``): rates, bands and thresholds *of* a seeded
  concept, which are parts of it and must stay new;
- ``eurlex``: the 49 EU acts' own names, ids and CELEX numbers
  (``/work/shared/data/eu-legislation/eu-regulations-json``) and terms the AI Act and the GDPR
  define (AI system, deployer, controller, personal data breach ...): siblings of the seeded
  acts and parts of them, new, never merged with the act; the seeded acts by CELEX number;
- ``revenue`` / ``citizensinformation`` / ``govuk``: page titles and scheme names on the
  official sites -- the seeded concepts under the site's own title, and the schemes the sites
  list next to them that differ by a word or a character (Injury Benefit / Illness Benefit,
  Form 12 / Form 11, SA103 / SA100, Personal Savings Allowance / Personal Allowance, Import
  One-Stop Shop / One-Stop Shop, XI EORI number / XI VAT number, UK Jobseeker's Allowance /
  Irish Jobseeker's Allowance);
- ``iso3166``: jurisdiction spellings the sixth set did not use (numeric ISO codes, upper and
  lower case, ISO 3166-2 subdivision codes, French and native names), places outside coverage,
  and captures with no jurisdiction stated.

Gold rule (as the fourth to sixth sets): a case's gold is a seeded concept only when the capture
names that concept itself (a synonym, acronym, former name, translation, spelling, or the
citation of the same act). A capture naming something broader, a part or kind, a rate or
threshold of it, a person, a document, an activity or a sibling of a seeded concept is a concept
of its own (``new:<group>``). ``skip:<reason>`` where nothing may be written. With no
jurisdiction stated, a label the graph holds in one jurisdiction only resolves there; anything
else is ``skip:jurisdiction_not_stated``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "resolution_heldout7.jsonl"

IE, UK, NI, EU = ["IE"], ["UK"], ["NI"], ["EU"]
NONE: list[str] = []
OOC = "skip:out_of_coverage"
UNSTATED = "skip:jurisdiction_not_stated"

# (category, source, domain, kind, jurisdiction, prefLabel, altLabels, conversation, gold)
C = tuple[str, str, str, str, str, str, list[str], list[str], str]

CASES: list[C] = [
    # --- EuroVoc non-preferred terms naming a seeded concept (its closeMatch) itself
    ("eurovoc_alt", "eurovoc:4585", "TAX", "VAT", "UK", "value added tax", [], UK, "TAX:UK:VAT"),
    ("eurovoc_alt", "eurovoc:4585", "TAX", "TVA", "UK", "TVA", [], UK, "TAX:UK:VAT"),
    ("eurovoc_alt", "eurovoc:4585", "TAX", "TURNOVER_TAX", "UK", "turnover tax", [], UK, "TAX:UK:VAT"),
    ("eurovoc_alt", "eurovoc:4585", "TAX", "VAT", "IE", "taxe sur la valeur ajoutée", [], IE, "TAX:IE:VAT"),
    ("eurovoc_alt", "eurovoc:1331", "TAX", "CORPORATE_INCOME_TAX", "IE", "corporate income tax", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc_alt", "eurovoc:1331", "TAX", "PROFITS_TAX", "IE", "profits tax", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc_alt", "eurovoc:1331", "TAX", "IMPOT_SUR_LES_SOCIETES", "IE", "impôt sur les sociétés", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc_alt", "eurovoc:1331", "TAX", "IMPOT_DES_PERSONNES_MORALES", "IE", "impôt des personnes morales", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc_alt", "eurovoc:4401", "TAX", "STAMP_TAX", "IE", "stamp tax", [], IE, "TAX:IE:STAMP_DUTY"),
    ("eurovoc_alt", "eurovoc:4401", "TAX", "DROITS_DE_TIMBRE", "IE", "droits de timbre", [], IE, "TAX:IE:STAMP_DUTY"),
    ("eurovoc_alt", "eurovoc:1324", "TAX", "DEATH_DUTY", "IE", "death duty", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc_alt", "eurovoc:1324", "TAX", "ESTATE_DUTY", "IE", "estate duty", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc_alt", "eurovoc:1324", "TAX", "DROITS_DE_SUCCESSION", "IE", "droits de succession", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc_alt", "eurovoc:1326", "TAX", "INCOME_TAX", "UK", "impôt sur le revenu", [], UK, "TAX:UK:INCOME_TAX"),
    ("eurovoc_alt", "eurovoc:1312", "TAX", "PERSONAL_INCOME_TAX", "IE", "personal income tax", [], IE, "TAX:IE:INCOME_TAX"),
    ("eurovoc_alt", "eurovoc:3332", "WELFARE", "UNEMPLOYMENT_INSURANCE", "IE", "unemployment insurance", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc_alt", "eurovoc:3332", "WELFARE", "ASSURANCE_CHOMAGE", "IE", "assurance chômage", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc_alt", "eurovoc:3332", "WELFARE", "UNEMPLOYMENT_BENEFIT", "IE", "unemployment benefit", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc_alt", "eurovoc:250", "SOCIAL_INSURANCE", "SOCIAL_SECURITY_CONTRIBUTION", "UK", "social-security contribution", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("eurovoc_alt", "eurovoc:250", "SOCIAL_INSURANCE", "COTISATION_SOCIALE", "IE", "cotisation sociale", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("eurovoc_alt", "eurovoc:3512", "WELFARE", "SICKNESS_BENEFIT", "IE", "sickness benefit", [], IE, "WELFARE:IE:ILLNESS_BENEFIT"),
    ("eurovoc_alt", "eurovoc:3412", "WELFARE", "DISABILITY_BENEFIT", "IE", "Disability Benefit", [], IE, "WELFARE:IE:ILLNESS_BENEFIT"),
    ("eurovoc_alt", "eurovoc:2604", "WELFARE", "FAMILY_ALLOWANCE", "UK", "family allowance", [], UK, "WELFARE:UK:CHILD_BENEFIT"),
    ("eurovoc_alt", "eurovoc:365", "TAX", "TAX_CREDIT", "IE", "tax credit", [], IE, "TAX:IE:TAX_CREDITS"),
    ("eurovoc_alt", "eurovoc:365", "TAX", "CREDIT_D_IMPOT", "IE", "crédit d'impôt", [], IE, "TAX:IE:TAX_CREDITS"),
    # --- EuroVoc non-preferred terms of neighbours: broader, narrower, sibling -- new, never merged
    ("eurovoc_alt", "eurovoc:1331", "TAX", "CORPORATION_TAX", "UK", "corporate income tax", [], UK, "new:uk_corporation_tax"),
    ("eurovoc_alt", "eurovoc:1331", "TAX", "CORPORATION_TAX", "UK", "Corporation Tax", [], UK, "new:uk_corporation_tax"),
    ("eurovoc_alt", "eurovoc:4401", "TAX", "STAMP_TAX", "UK", "stamp tax", [], UK, "new:uk_stamp_duty"),
    ("eurovoc_alt", "eurovoc:1324", "TAX", "INHERITANCE_TAX", "UK", "death duties", [], UK, "new:uk_inheritance_tax"),
    ("eurovoc_alt", "eurovoc:1324", "TAX", "INHERITANCE_TAX", "UK", "inheritance tax", [], UK, "new:uk_inheritance_tax"),
    ("eurovoc_alt", "eurovoc:3332", "WELFARE", "UNEMPLOYMENT_BENEFIT", "UK", "unemployment benefit", [], UK, "new:uk_unemployment_benefit"),
    ("eurovoc_alt", "eurovoc:250", "SOCIAL_INSURANCE", "EMPLOYERS_CONTRIBUTION", "IE", "employer's contribution", [], IE, "new:ie_employer_prsi"),
    ("eurovoc_alt", "eurovoc:250", "SOCIAL_INSURANCE", "COTISATION_PATRONALE", "IE", "cotisation patronale", [], IE, "new:ie_employer_prsi"),
    ("eurovoc_alt", "eurovoc:250", "SOCIAL_INSURANCE", "EMPLOYEES_CONTRIBUTION", "UK", "employee's contribution", [], UK, "new:uk_employee_nic"),
    ("eurovoc_alt", "eurovoc:3512", "WELFARE", "HEALTH_INSURANCE", "IE", "health insurance", [], IE, "new:ie_health_insurance"),
    ("eurovoc_alt", "eurovoc:3512", "WELFARE", "MEDICAL_INSURANCE", "IE", "medical insurance", [], IE, "new:ie_health_insurance"),
    ("eurovoc_alt", "eurovoc:3512", "WELFARE", "ASSURANCE_MALADIE", "IE", "assurance maladie", [], IE, "new:ie_health_insurance"),
    ("eurovoc_alt", "eurovoc:3412", "WELFARE", "DISABILITY_ALLOWANCE", "IE", "disability allowance", [], IE, "new:ie_disability_allowance"),
    ("eurovoc_alt", "eurovoc:3412", "WELFARE", "DISABILITY_PENSION", "IE", "disability pension", [], IE, "new:ie_disability_pension"),
    ("eurovoc_alt", "eurovoc:3412", "WELFARE", "PENSION_D_INVALIDITE", "IE", "pension d'invalidité", [], IE, "new:ie_disability_pension"),
    ("eurovoc_alt", "eurovoc:3362", "PENSIONS", "SERPS", "UK", "SERP", [], UK, "new:uk_serps"),
    ("eurovoc_alt", "eurovoc:3362", "PENSIONS", "SERPS", "UK", "SERPS", [], UK, "new:uk_serps"),
    ("eurovoc_alt", "eurovoc:3362", "PENSIONS", "SERPS", "UK", "State Earnings-Related Pension Scheme", [], UK, "new:uk_serps"),
    ("eurovoc_alt", "eurovoc:3362", "PENSIONS", "ADDITIONAL_STATE_PENSION", "UK", "additional State Pension", [], UK, "new:uk_additional_state_pension"),
    ("eurovoc_alt", "eurovoc:2601", "PENSIONS", "SURVIVORS_PENSION", "IE", "survivor's pension", [], IE, "new:ie_survivors_pension"),
    ("eurovoc_alt", "eurovoc:2601", "PENSIONS", "WIDOWS_PENSION", "IE", "widow's pension", [], IE, "new:ie_survivors_pension"),
    ("eurovoc_alt", "eurovoc:2601", "PENSIONS", "PENSION_DE_REVERSION", "IE", "pension de réversion", [], IE, "new:ie_survivors_pension"),
    ("eurovoc_alt", "eurovoc:2601", "WELFARE", "ORPHANS_BENEFIT", "IE", "orphan's benefit", [], IE, "new:ie_orphans_benefit"),
    ("eurovoc_alt", "eurovoc:2604", "WELFARE", "FAMILY_BENEFIT", "IE", "family benefit", [], IE, "new:ie_family_benefit"),
    ("eurovoc_alt", "eurovoc:2604", "WELFARE", "PRESTATION_FAMILIALE", "IE", "prestation familiale", [], IE, "new:ie_family_benefit"),
    ("eurovoc_alt", "eurovoc:2604", "WELFARE", "RENT_ALLOWANCE", "IE", "rent allowance", [], IE, "new:ie_rent_allowance"),
    ("eurovoc_alt", "eurovoc:2604", "WELFARE", "SINGLE_PARENT_ALLOWANCE", "IE", "single parent allowance", [], IE, "new:ie_single_parent_allowance"),
    ("eurovoc_alt", "eurovoc:365", "TAX", "TAX_RELIEF", "IE", "tax relief", [], IE, "new:ie_tax_relief"),
    ("eurovoc_alt", "eurovoc:365", "TAX", "TAX_DEDUCTION", "IE", "tax deduction", [], IE, "new:ie_tax_relief"),
    ("eurovoc_alt", "eurovoc:365", "TAX", "DEDUCTION_FISCALE", "IE", "déduction fiscale", [], IE, "new:ie_tax_relief"),
    ("eurovoc_alt", "eurovoc:365", "TAX", "TAX_ALLOWANCE", "UK", "tax allowance", [], UK, "new:uk_tax_allowance"),
    ("eurovoc_alt", "eurovoc:7351", "TAX", "TAX_REFUND", "IE", "tax refund", [], IE, "new:ie_tax_refund"),
    ("eurovoc_alt", "eurovoc:7351", "TAX", "TAX_REBATE", "IE", "tax rebate", [], IE, "new:ie_tax_refund"),
    ("eurovoc_alt", "eurovoc:7351", "TAX", "REMBOURSEMENT_D_IMPOT", "IE", "remboursement d'impôt", [], IE, "new:ie_tax_refund"),
    ("eurovoc_alt", "eurovoc:935", "TAX", "TAX_EXEMPTION", "IE", "tax exemption", [], IE, "new:ie_tax_exemption"),
    ("eurovoc_alt", "eurovoc:4409", "VEHICLE_REG", "MOTOR_TAX", "IE", "vehicle tax", [], IE, "new:ie_motor_tax"),
    ("eurovoc_alt", "eurovoc:4409", "VEHICLE_REG", "ROAD_TAX", "IE", "road tax", [], IE, "new:ie_motor_tax"),
    ("eurovoc_alt", "eurovoc:4409", "VEHICLE_REG", "TAXE_DE_CIRCULATION", "IE", "taxe de circulation", [], IE, "new:ie_motor_tax"),
    ("eurovoc_alt", "eurovoc:4409", "VEHICLE_REG", "VED", "UK", "vehicle excise duty", [], UK, "new:uk_ved"),
    ("eurovoc_alt", "eurovoc:4409", "VEHICLE_REG", "ROAD_FUND_LICENCE", "UK", "road fund licence", [], UK, "new:uk_ved"),
    ("eurovoc_alt", "eurovoc:1015", "TAX", "EXCISE_DUTY", "IE", "excise duty", [], IE, "new:ie_excise"),
    ("eurovoc_alt", "eurovoc:1015", "TAX", "EXCISE_TAX", "IE", "excise tax", [], IE, "new:ie_excise"),
    ("eurovoc_alt", "eurovoc:1015", "TAX", "DROIT_D_ACCISE", "IE", "droit d'accise", [], IE, "new:ie_excise"),
    ("eurovoc_alt", "eurovoc:4407", "TAX", "FUEL_TAX", "IE", "tax on motor fuels", [], IE, "new:ie_fuel_tax"),
    ("eurovoc_alt", "eurovoc:4407", "TAX", "FUEL_TAX", "IE", "fuel tax", [], IE, "new:ie_fuel_tax"),
    ("eurovoc_alt", "eurovoc:4406", "TAX", "BUSINESS_RATES", "UK", "business rate", [], UK, "new:uk_business_rates"),
    ("eurovoc_alt", "eurovoc:4406", "TAX", "TRADE_TAX", "IE", "trade tax", [], IE, "new:ie_trade_tax"),
    ("eurovoc_alt", "eurovoc:3261", "TAX", "TAX_TREATY", "IE", "taxation treaty", [], IE, "new:ie_tax_treaty"),
    ("eurovoc_alt", "eurovoc:3261", "TAX", "TAX_TREATY", "IE", "international tax convention", [], IE, "new:ie_tax_treaty"),
    ("eurovoc_alt", "eurovoc:3261", "TAX", "CONVENTION_FISCALE", "IE", "convention fiscale bilatérale", [], IE, "new:ie_tax_treaty"),
    ("eurovoc_alt", "eurovoc:4028", "EU_LAW", "SOCIAL_SECURITY_HARMONISATION", "EU", "harmonisation of social security systems", [], EU, "new:eu_ss_harmonisation"),
    ("eurovoc_alt", "eurovoc:4028", "EU_LAW", "SOCIAL_SECURITY_HARMONISATION", "EU", "harmonisation des régimes de sécurité sociale", [], EU, "new:eu_ss_harmonisation"),
    ("eurovoc_alt", "eurovoc:1234", "EU_LAW", "TAX_HARMONISATION", "EU", "harmonisation of tax systems", [], EU, "new:eu_tax_harmonisation"),
    ("eurovoc_alt", "eurovoc:1234", "EU_LAW", "TAX_HARMONISATION", "EU", "tax harmonization", [], EU, "new:eu_tax_harmonisation"),
    ("eurovoc_alt", "eurovoc:57", "TAX", "TAX_AUTHORITIES", "UK", "Inland Revenue", [], UK, "new:uk_hmrc"),
    ("eurovoc_alt", "eurovoc:57", "TAX", "TAX_INSPECTOR", "IE", "tax inspector", [], IE, "new:ie_tax_inspector"),
    ("eurovoc_alt", "eurovoc:7981", "WELFARE", "PARENTAL_LEAVE_ALLOWANCE", "IE", "parental leave allowance", [], IE, "new:ie_parents_benefit"),
    ("eurovoc_alt", "eurovoc:7981", "WELFARE", "ALLOCATION_DE_CONGE_PARENTAL", "IE", "allocation de congé parental", [], IE, "new:ie_parents_benefit"),
    ("eurovoc_alt", "eurovoc:826", "WELFARE", "INCOME_SUPPORT", "UK", "income support", [], UK, "new:uk_income_support"),
    ("eurovoc_alt", "eurovoc:826", "WELFARE", "SUPPLEMENTARY_BENEFIT", "UK", "supplementary benefit", [], UK, "new:uk_supplementary_benefit"),
    ("eurovoc_alt", "eurovoc:3249", "WELFARE", "INDUSTRIAL_INJURIES", "UK", "industrial injuries scheme", [], UK, "new:uk_industrial_injuries"),
    ("eurovoc_alt", "eurovoc:4209", "WELFARE", "ATTENDANCE_ALLOWANCE", "UK", "attendance allowance", [], UK, "new:uk_attendance_allowance"),
    ("eurovoc_alt", "eurovoc:3751", "PENSIONS", "OCCUPATIONAL_PENSION", "IE", "occupational pension", [], IE, "new:ie_occupational_pension"),
    ("eurovoc_alt", "eurovoc:3751", "PENSIONS", "PENSION_PLAN", "IE", "pension plan", [], IE, "new:ie_pension_plan"),
    ("eurovoc_alt", "eurovoc:3751", "PENSIONS", "OCCUPATIONAL_PENSION", "UK", "occupational pension", [], UK, "new:uk_occupational_pension"),
    ("eurovoc_alt", "eurovoc:3365", "TAX", "MEDICAL_EXPENSES", "IE", "medical expenses", [], IE, "new:ie_medical_expenses"),
    ("eurovoc_alt", "eurovoc:1399", "WELFARE", "ALLOCATION_DE_NAISSANCE", "IE", "allocation de naissance", [], IE, "new:ie_birth_grant"),
    # --- PolicyEngine Ireland parameter labels: rates, bands, thresholds of a seeded concept (parts: new)
    ("part", "policyengine", "WELFARE", "CHILD_BENEFIT_RATES", "IE", "Child Benefit rates", [], IE, "new:ie_child_benefit_rates"),
    ("part", "policyengine", "TAX", "INCOME_TAX_BANDS", "IE", "Income tax bands", [], IE, "new:ie_income_tax_bands"),
    ("part", "policyengine", "TAX", "INCOME_TAX_RATES", "IE", "Income tax rates", [], IE, "new:ie_income_tax_rates"),
    ("part", "policyengine", "SOCIAL_INSURANCE", "PRSI_EMPLOYEE_RATES", "IE", "PRSI employee rates", [], IE, "new:ie_prsi_employee_rates"),
    ("part", "policyengine", "SOCIAL_INSURANCE", "PRSI_EMPLOYER_RATES", "IE", "PRSI employer rates", [], IE, "new:ie_prsi_employer_rates"),
    ("part", "policyengine", "SOCIAL_INSURANCE", "PRSI_THRESHOLDS", "IE", "PRSI thresholds", [], IE, "new:ie_prsi_thresholds"),
    ("part", "policyengine", "TAX", "USC_RATES", "IE", "USC rates", [], IE, "new:ie_usc_rates"),
    ("part", "policyengine", "TAX", "USC_THRESHOLDS", "IE", "USC thresholds", [], IE, "new:ie_usc_thresholds"),
    ("part", "policyengine", "PENSIONS", "STATE_PENSION_RATES", "IE", "State Pension rates", [], IE, "new:ie_state_pension_rates"),
    ("part", "policyengine", "WELFARE", "JOBSEEKERS_RATES", "IE", "Jobseeker's payment rates", [], IE, "new:ie_jobseekers_rates"),
    ("sibling", "policyengine", "WELFARE", "DISABILITY_ALLOWANCE", "IE", "Disability Allowance", [], IE, "new:ie_disability_allowance"),
    ("sibling", "policyengine", "WELFARE", "WORKING_FAMILY_PAYMENT", "IE", "Working Family Payment", [], IE, "new:ie_wfp"),
    ("sibling", "policyengine", "WELFARE", "HAP", "IE", "HAP", [], IE, "new:ie_hap"),
    ("surface", "policyengine", "TAX", "INCOME_TAX_CREDITS", "IE", "Income tax credits", [], IE, "TAX:IE:TAX_CREDITS"),
    # --- EU acts: the seeded acts by CELEX number and official name; siblings and defined terms new
    ("eu_act", "eurlex", "EU_LAW", "GDPR", "EU", "32016R0679", [], EU, "EU_LAW:EU:GDPR"),
    ("eu_act", "eurlex", "EU_LAW", "AI_ACT", "EU", "CELEX 32024R1689", [], EU, "EU_LAW:EU:AI_ACT"),
    ("eu_act", "eurlex", "EU_LAW", "GDPR", "EU", "Regulation (EU) 2016/679", [], EU, "EU_LAW:EU:GDPR"),
    ("eu_act", "eurlex", "EU_LAW", "GDPR", "EU", "General Data Protection Regulation (GDPR)", [], EU, "EU_LAW:EU:GDPR"),
    ("eu_act", "eurlex", "EU_LAW", "VAT_DIRECTIVE", "EU", "Council Directive 2006/112/EC", [], EU, "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"),
    ("eu_act", "eurlex", "EU_LAW", "VAT_DIRECTIVE", "EU", "Directive 2006/112/CE", [], EU, "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"),
    ("eu_act", "eurlex", "EU_LAW", "REG_883", "EU", "Regulation (EC) No 883/2004", [], EU, "EU_LAW:EU:SOCIAL_SECURITY_COORDINATION"),
    ("eu_act", "eurlex", "EU_LAW", "REG_883", "EU", "Règlement (CE) n° 883/2004", [], EU, "EU_LAW:EU:SOCIAL_SECURITY_COORDINATION"),
    ("eu_act", "eurlex", "EU_LAW", "REG_1231", "EU", "Regulation (EU) No 1231/2010", [], EU, "new:eu_reg_1231_2010"),
    ("eu_act", "eurlex", "EU_LAW", "REG_1408", "EU", "Regulation (EEC) No 1408/71", [], EU, "new:eu_reg_1408_71"),
    ("eu_act", "eurlex", "EU_LAW", "LED", "EU", "Law Enforcement Directive", [], EU, "new:eu_led"),
    ("eu_act", "eurlex", "EU_LAW", "LED", "EU", "Directive (EU) 2016/680", [], EU, "new:eu_led"),
    ("eu_act", "eurlex", "EU_LAW", "DGA", "EU", "Data Governance Act", [], EU, "new:eu_dga"),
    ("eu_act", "eurlex", "EU_LAW", "DMA", "EU", "Digital Markets Act", [], EU, "new:eu_dma"),
    ("eu_act", "eurlex", "EU_LAW", "DMA", "EU", "DMA", [], EU, "new:eu_dma"),
    ("eu_act", "eurlex", "EU_LAW", "DORA", "EU", "Digital Operational Resilience Act", [], EU, "new:eu_dora"),
    ("eu_act", "eurlex", "EU_LAW", "DORA", "EU", "DORA", [], EU, "new:eu_dora"),
    ("eu_act", "eurlex", "EU_LAW", "CRA", "EU", "Cyber Resilience Act", [], EU, "new:eu_cra"),
    ("eu_act", "eurlex", "EU_LAW", "CYBERSECURITY_ACT", "EU", "EU Cybersecurity Act", [], EU, "new:eu_cybersecurity_act"),
    ("eu_act", "eurlex", "EU_LAW", "MICA", "EU", "Markets in Crypto-Assets Regulation", [], EU, "new:eu_mica"),
    ("eu_act", "eurlex", "EU_LAW", "MICA", "EU", "MiCA", [], EU, "new:eu_mica"),
    ("eu_act", "eurlex", "EU_LAW", "PSD2", "EU", "Payment Services Directive 2", [], EU, "new:eu_psd2"),
    ("eu_act", "eurlex", "EU_LAW", "PAD", "EU", "Payment Accounts Directive", [], EU, "new:eu_pad"),
    ("eu_act", "eurlex", "EU_LAW", "CBAM", "EU", "Carbon Border Adjustment Mechanism Regulation", [], EU, "new:eu_cbam"),
    ("eu_act", "eurlex", "EU_LAW", "CBAM", "EU", "CBAM", [], EU, "new:eu_cbam"),
    ("eu_act", "eurlex", "EU_LAW", "EU_TAXONOMY", "EU", "EU Taxonomy Regulation", [], EU, "new:eu_taxonomy"),
    ("eu_act", "eurlex", "EU_LAW", "EHDS", "EU", "European Health Data Space Regulation", [], EU, "new:eu_ehds"),
    ("eu_act", "eurlex", "EU_LAW", "PLD", "EU", "Product Liability Directive", [], EU, "new:eu_pld"),
    ("eu_act", "eurlex", "EU_LAW", "EIDAS2", "EU", "European Digital Identity Framework (eIDAS 2.0)", [], EU, "new:eu_eidas"),
    ("eu_act", "eurlex", "EU_LAW", "INTEROPERABLE_EUROPE_ACT", "EU", "Interoperable Europe Act", [], EU, "new:eu_interoperable_europe"),
    ("eu_act", "eurlex", "EU_LAW", "IOSS", "EU", "Import One-Stop Shop", [], EU, "new:eu_ioss"),
    ("eu_act", "eurlex", "EU_LAW", "IOSS", "EU", "IOSS", [], EU, "new:eu_ioss"),
    ("defined_term", "eurlex", "EU_LAW", "AI_SYSTEM", "EU", "AI system", [], EU, "new:eu_ai_system"),
    ("defined_term", "eurlex", "EU_LAW", "GPAI_MODEL", "EU", "general-purpose AI model", [], EU, "new:eu_gpai_model"),
    ("defined_term", "eurlex", "EU_LAW", "HIGH_RISK_AI_SYSTEM", "EU", "high-risk AI system", [], EU, "new:eu_high_risk_ai_system"),
    ("defined_term", "eurlex", "EU_LAW", "AI_OFFICE", "EU", "AI Office", [], EU, "new:eu_ai_office"),
    ("defined_term", "eurlex", "EU_LAW", "AI_REGULATORY_SANDBOX", "EU", "AI regulatory sandbox", [], EU, "new:eu_ai_sandbox"),
    ("defined_term", "eurlex", "EU_LAW", "DEPLOYER", "EU", "deployer", [], EU, "new:eu_deployer"),
    ("defined_term", "eurlex", "EU_LAW", "PERSONAL_DATA", "EU", "personal data", [], EU, "new:eu_personal_data"),
    ("defined_term", "eurlex", "EU_LAW", "PERSONAL_DATA_BREACH", "EU", "personal data breach", [], EU, "new:eu_personal_data_breach"),
    ("defined_term", "eurlex", "EU_LAW", "CONTROLLER", "EU", "controller", [], EU, "new:eu_controller"),
    ("defined_term", "eurlex", "EU_LAW", "DPO", "EU", "data protection officer", [], EU, "new:eu_dpo"),
    ("defined_term", "eurlex", "EU_LAW", "DPIA", "EU", "data protection impact assessment", [], EU, "new:eu_dpia"),
    ("defined_term", "eurlex", "EU_LAW", "DPIA", "EU", "DPIA", [], EU, "new:eu_dpia"),
    ("defined_term", "eurlex", "EU_LAW", "SUPERVISORY_AUTHORITY", "EU", "supervisory authority", [], EU, "new:eu_supervisory_authority"),
    # --- official sites: seeded concepts under the site's own title
    ("site_title", "revenue", "TAX", "VAT", "IE", "Value-Added Tax (VAT)", [], IE, "TAX:IE:VAT"),
    ("site_title", "revenue", "TAX", "PAYE", "IE", "Pay As You Earn (PAYE)", [], IE, "TAX:IE:PAYE"),
    ("site_title", "revenue", "TAX", "CORPORATION_TAX", "IE", "Corporation Tax (CT)", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("site_title", "revenue", "VEHICLE_REG", "VRT", "IE", "Vehicle Registration Tax (VRT)", [], IE, "VEHICLE_REG:IE:VRT"),
    ("site_title", "revenue", "TAX", "RD_TAX_CREDIT", "IE", "Research and Development (R&D) Corporation Tax Credit", [], IE, "TAX:IE:RD_TAX_CREDIT"),
    ("site_title", "revenue", "TAX", "EMPLOYEE_TAX_CREDIT", "IE", "Employee (PAYE) Tax Credit", [], IE, "TAX:IE:EMPLOYEE_TAX_CREDIT"),
    ("site_title", "revenue", "TAX", "ENTREPRENEUR_RELIEF", "IE", "Revised Entrepreneur Relief", [], IE, "TAX:IE:ENTREPRENEUR_RELIEF"),
    ("site_title", "revenue", "TAX", "HELP_TO_BUY", "IE", "Help to Buy (HTB) scheme", [], IE, "TAX:IE:HELP_TO_BUY"),
    ("site_title", "revenue", "TAX", "PRELIMINARY_TAX", "IE", "Preliminary Tax", [], IE, "TAX:IE:PRELIMINARY_TAX"),
    ("site_title", "revenue", "TAX", "CAT", "IE", "Capital Acquisitions Tax", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("site_title", "revenue", "TAX", "STANDARD_RATE_BAND", "IE", "Standard Rate Band", [], IE, "TAX:IE:STANDARD_RATE_BAND"),
    ("site_title", "citizensinformation", "SOCIAL_INSURANCE", "PRSI", "IE", "Pay Related Social Insurance", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("site_title", "citizensinformation", "PENSIONS", "STATE_PENSION_CONTRIBUTORY", "IE", "State Pension (Contributory)", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("site_title", "citizensinformation", "PENSIONS", "AUTO_ENROLMENT", "IE", "Automatic Enrolment Retirement Savings System", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("site_title", "citizensinformation", "PENSIONS", "AUTO_ENROLMENT", "IE", "autoenrolment", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("site_title", "citizensinformation", "WELFARE", "TREATMENT_BENEFIT", "IE", "Treatment Benefit Scheme", [], IE, "WELFARE:IE:TREATMENT_BENEFIT"),
    ("site_title", "citizensinformation", "WELFARE", "JOBSEEKERS_BENEFIT", "IE", "Jobseekers' Benefit", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("site_title", "citizensinformation", "WELFARE", "CHILD_BENEFIT", "IE", "Child Benefit", [], IE, "WELFARE:IE:CHILD_BENEFIT"),
    ("site_title", "govuk", "TAX", "INCOME_TAX", "UK", "Income Tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("site_title", "govuk", "SOCIAL_INSURANCE", "CLASS_1_NIC", "UK", "Class 1 National Insurance contributions", [], UK, "SOCIAL_INSURANCE:UK:CLASS_1_NIC"),
    ("site_title", "govuk", "TAX", "CGT_ALLOWANCE", "UK", "Capital Gains Tax allowance", [], UK, "TAX:UK:CGT_ANNUAL_EXEMPT_AMOUNT"),
    ("site_title", "govuk", "TAX", "PERSONAL_ALLOWANCE", "UK", "tax-free Personal Allowance", [], UK, "TAX:UK:PERSONAL_ALLOWANCE"),
    ("site_title", "govuk", "TAX", "PAYMENTS_ON_ACCOUNT", "UK", "payment on account", [], UK, "TAX:UK:PAYMENTS_ON_ACCOUNT"),
    ("site_title", "govuk", "TAX", "HICBC", "UK", "High Income Child Benefit Charge", [], UK, "TAX:UK:HIGH_INCOME_CHILD_BENEFIT_CHARGE"),
    ("site_title", "govuk", "PENSIONS", "NEW_STATE_PENSION", "UK", "the new State Pension", [], UK, "PENSIONS:UK:STATE_PENSION"),
    ("site_title", "govuk", "TAX", "XI_VAT_NUMBER", "NI", "XI VAT registration number", [], NI, "TAX:NI:XI_VAT_NUMBER"),
    # --- official sites: schemes listed beside a seeded concept, a word or a character apart: new
    ("near_name", "citizensinformation", "WELFARE", "JB_SELF_EMPLOYED", "IE", "Jobseeker's Benefit (Self-Employed)", [], IE, "new:ie_jb_self_employed"),
    ("near_name", "citizensinformation", "WELFARE", "INJURY_BENEFIT", "IE", "Injury Benefit", [], IE, "new:ie_injury_benefit"),
    ("near_name", "citizensinformation", "WELFARE", "OCCUPATIONAL_INJURIES", "IE", "Occupational Injuries Benefit Scheme", [], IE, "new:ie_occupational_injuries"),
    ("near_name", "citizensinformation", "WELFARE", "PARTIAL_CAPACITY_BENEFIT", "IE", "Partial Capacity Benefit", [], IE, "new:ie_partial_capacity_benefit"),
    ("near_name", "citizensinformation", "WELFARE", "DENTAL_TREATMENT_BENEFIT", "IE", "Dental Treatment Benefit", [], IE, "new:ie_dental_benefit"),
    ("near_name", "citizensinformation", "WELFARE", "PARENTS_BENEFIT", "IE", "Parent's Benefit", [], IE, "new:ie_parents_benefit"),
    ("near_name", "citizensinformation", "PENSIONS", "STATE_PENSION_TRANSITION", "IE", "State Pension (Transition)", [], IE, "new:ie_state_pension_transition"),
    ("near_name", "citizensinformation", "PENSIONS", "BLIND_PENSION", "IE", "Blind Pension", [], IE, "new:ie_blind_pension"),
    ("near_name", "citizensinformation", "WELFARE", "FUEL_ALLOWANCE", "IE", "Fuel Allowance", [], IE, "new:ie_fuel_allowance"),
    ("near_name", "citizensinformation", "WELFARE", "HOUSEHOLD_BENEFITS_PACKAGE", "IE", "Household Benefits Package", [], IE, "new:ie_household_benefits"),
    ("near_name", "citizensinformation", "WELFARE", "BTWEA", "IE", "Back to Work Enterprise Allowance", [], IE, "new:ie_btwea"),
    ("near_name", "citizensinformation", "WELFARE", "BTEA", "IE", "Back to Education Allowance", [], IE, "new:ie_btea"),
    ("near_name", "citizensinformation", "WELFARE", "SWA", "IE", "Supplementary Welfare Allowance", [], IE, "new:ie_swa"),
    ("near_name", "citizensinformation", "WELFARE", "DCA", "IE", "Domiciliary Care Allowance", [], IE, "new:ie_dca"),
    ("near_name", "citizensinformation", "WELFARE", "GUARDIANS_PAYMENT", "IE", "Guardian's Payment (Contributory)", [], IE, "new:ie_guardians_payment"),
    ("near_name", "citizensinformation", "WELFARE", "CARERS_SUPPORT_GRANT", "IE", "Carer's Support Grant", [], IE, "new:ie_carers_support_grant"),
    ("near_name", "citizensinformation", "WELFARE", "HAP", "IE", "Housing Assistance Payment", [], IE, "new:ie_hap"),
    ("near_name", "citizensinformation", "WELFARE", "WORKING_FAMILY_PAYMENT", "IE", "Working Family Payment (WFP)", [], IE, "new:ie_wfp"),
    ("near_name", "citizensinformation", "WELFARE", "NURSING_HOME_SUPPORT", "IE", "Nursing Home Support Scheme (Fair Deal)", [], IE, "new:ie_fair_deal"),
    ("near_name", "citizensinformation", "WELFARE", "NCS", "IE", "National Childcare Scheme", [], IE, "new:ie_ncs"),
    ("near_name", "revenue", "TAX", "AGE_TAX_CREDIT", "IE", "Age Tax Credit", [], IE, "new:ie_age_credit"),
    ("near_name", "revenue", "TAX", "DEPENDENT_RELATIVE_TAX_CREDIT", "IE", "Dependent Relative Tax Credit", [], IE, "new:ie_dependent_relative_credit"),
    ("near_name", "revenue", "TAX", "INCAPACITATED_CHILD_TAX_CREDIT", "IE", "Incapacitated Child Tax Credit", [], IE, "new:ie_incapacitated_child_credit"),
    ("near_name", "revenue", "TAX", "WIDOWED_PERSON_TAX_CREDIT", "IE", "Widowed Person or Surviving Civil Partner Tax Credit", [], IE, "new:ie_widowed_credit"),
    ("near_name", "revenue", "TAX", "FISHER_TAX_CREDIT", "IE", "Fisher Tax Credit", [], IE, "new:ie_fisher_credit"),
    ("near_name", "revenue", "TAX", "SMALL_BENEFIT_EXEMPTION", "IE", "Small Benefit Exemption", [], IE, "new:ie_small_benefit_exemption"),
    ("near_name", "revenue", "TAX", "SARP", "IE", "Special Assignee Relief Programme (SARP)", [], IE, "new:ie_sarp"),
    ("near_name", "revenue", "TAX", "KEEP", "IE", "Key Employee Engagement Programme", [], IE, "new:ie_keep"),
    ("near_name", "revenue", "TAX", "EII", "IE", "Employment Investment Incentive (EII)", [], IE, "new:ie_eii"),
    ("near_name", "revenue", "TAX", "DWT", "IE", "Dividend Withholding Tax", [], IE, "new:ie_dwt"),
    ("near_name", "revenue", "TAX", "DIRT", "IE", "Deposit Interest Retention Tax (DIRT)", [], IE, "new:ie_dirt"),
    ("near_name", "revenue", "TAX", "DIRT", "IE", "DIRT", [], IE, "new:ie_dirt"),
    ("near_name", "revenue", "TAX", "RCT", "IE", "Relevant Contracts Tax", [], IE, "new:ie_rct"),
    ("near_name", "revenue", "TAX", "PSWT", "IE", "Professional Services Withholding Tax", [], IE, "new:ie_pswt"),
    ("near_name", "revenue", "TAX", "VACANT_HOMES_TAX", "IE", "Vacant Homes Tax", [], IE, "new:ie_vacant_homes_tax"),
    ("near_name", "revenue", "TAX", "RZLT", "IE", "Residential Zoned Land Tax", [], IE, "new:ie_rzlt"),
    ("near_name", "revenue", "TAX", "CARBON_TAX", "IE", "Carbon Tax", [], IE, "new:ie_carbon_tax"),
    ("near_name", "revenue", "TAX", "CARBON_TAX", "IE", "carbon tax", [], IE, "new:ie_carbon_tax"),
    ("near_name", "revenue", "TAX", "MINERAL_OIL_TAX", "IE", "Mineral Oil Tax", [], IE, "new:ie_fuel_tax"),
    ("near_name", "revenue", "TAX", "LPT", "IE", "Local Property Tax", [], IE, "new:ie_lpt"),
    ("near_name", "revenue", "TAX", "FLAT_RATE_EXPENSES", "IE", "Flat Rate Expenses", [], IE, "new:ie_flat_rate_expenses"),
    ("near_name", "revenue", "TAX", "HEALTH_EXPENSES_RELIEF", "IE", "Health expenses relief", [], IE, "new:ie_medical_expenses"),
    ("near_name", "revenue", "TAX", "FORM_12", "IE", "Form 12", [], IE, "new:ie_form_12"),
    ("near_name", "revenue", "TAX", "FORM_CT1", "IE", "Form CT1", [], IE, "new:ie_form_ct1"),
    ("near_name", "revenue", "TAX", "P60", "IE", "P60", [], IE, "new:ie_p60"),
    ("near_name", "revenue", "TAX", "PPR_RELIEF", "IE", "Principal Private Residence Relief", [], IE, "new:ie_ppr_relief"),
    ("near_name", "revenue", "TAX", "REVENUE_COMMISSIONERS", "IE", "Revenue Commissioners", [], IE, "new:ie_revenue"),
    ("near_name", "govuk", "TAX", "HMRC", "UK", "HM Revenue and Customs", [], UK, "new:uk_hmrc"),
    ("near_name", "govuk", "TAX", "HMRC", "UK", "HMRC", [], UK, "new:uk_hmrc"),
    ("near_name", "govuk", "TAX", "SA103", "UK", "SA103", [], UK, "new:uk_sa103"),
    ("near_name", "govuk", "TAX", "SA302", "UK", "SA302 tax calculation", [], UK, "new:uk_sa302"),
    ("near_name", "govuk", "TAX", "P45", "UK", "P45", [], UK, "new:uk_p45"),
    ("near_name", "govuk", "SOCIAL_INSURANCE", "NINO", "UK", "National Insurance number", [], UK, "new:uk_nino"),
    ("near_name", "govuk", "SOCIAL_INSURANCE", "CLASS_1B_NIC", "UK", "Class 1B National Insurance", [], UK, "new:uk_class_1b_nic"),
    ("near_name", "govuk", "TAX", "PERSONAL_SAVINGS_ALLOWANCE", "UK", "Personal Savings Allowance", [], UK, "new:uk_psa"),
    ("near_name", "govuk", "TAX", "TRADING_ALLOWANCE", "UK", "Trading Allowance", [], UK, "new:uk_trading_allowance"),
    ("near_name", "govuk", "TAX", "PROPERTY_ALLOWANCE", "UK", "Property Allowance", [], UK, "new:uk_property_allowance"),
    ("near_name", "govuk", "TAX", "TAX_FREE_CHILDCARE", "UK", "Tax-Free Childcare", [], UK, "new:uk_tax_free_childcare"),
    ("near_name", "govuk", "WELFARE", "GUARDIANS_ALLOWANCE", "UK", "Guardian's Allowance", [], UK, "new:uk_guardians_allowance"),
    ("near_name", "govuk", "WELFARE", "SMP", "UK", "Statutory Maternity Pay", [], UK, "new:uk_smp"),
    ("near_name", "govuk", "WELFARE", "SSP", "UK", "Statutory Sick Pay", [], UK, "new:uk_ssp"),
    ("near_name", "govuk", "WELFARE", "ESA", "UK", "Employment and Support Allowance", [], UK, "new:uk_esa"),
    ("near_name", "govuk", "WELFARE", "JSA", "UK", "Jobseeker's Allowance", [], UK, "new:uk_jsa"),
    ("near_name", "govuk", "WELFARE", "NEW_STYLE_JSA", "UK", "New Style Jobseeker's Allowance", [], UK, "new:uk_new_style_jsa"),
    ("near_name", "govuk", "PENSIONS", "PENSION_CREDIT", "UK", "Pension Credit", [], UK, "new:uk_pension_credit"),
    ("near_name", "govuk", "PENSIONS", "BASIC_STATE_PENSION", "UK", "basic State Pension", [], UK, "new:uk_basic_state_pension"),
    ("near_name", "govuk", "PENSIONS", "STATE_PENSION_AGE", "UK", "State Pension age", [], UK, "new:uk_state_pension_age"),
    ("near_name", "govuk", "PENSIONS", "WORKPLACE_PENSION", "UK", "workplace pension", [], UK, "new:uk_workplace_pension"),
    ("near_name", "govuk", "TAX", "INVESTORS_RELIEF", "UK", "Investors' Relief", [], UK, "new:uk_investors_relief"),
    ("near_name", "govuk", "TAX", "PRIVATE_RESIDENCE_RELIEF", "UK", "Private Residence Relief", [], UK, "new:uk_prr"),
    ("near_name", "govuk", "TAX", "GIFT_HOLD_OVER_RELIEF", "UK", "Gift Hold-Over Relief", [], UK, "new:uk_gift_holdover"),
    ("near_name", "govuk", "TAX", "SDLT", "UK", "Stamp Duty Land Tax", [], UK, "new:uk_sdlt"),
    ("near_name", "govuk", "TAX", "XI_EORI", "NI", "XI EORI number", [], NI, "new:ni_xi_eori"),
    ("near_name", "govuk", "TAX", "WINDSOR_FRAMEWORK", "NI", "Windsor Framework", [], NI, "new:ni_windsor_framework"),
    ("near_name", "govuk", "TAX", "UKIMS", "NI", "UK Internal Market Scheme", [], NI, "new:ni_ukims"),
    # --- jurisdiction spellings the sixth set did not use
    ("jurisdiction", "iso3166", "TAX", "VAT", "IRELAND", "VAT", [], IE, "TAX:IE:VAT"),
    ("jurisdiction", "iso3166", "SOCIAL_INSURANCE", "PRSI", "irl", "PRSI", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("jurisdiction", "iso3166", "TAX", "USC", "372", "Universal Social Charge", [], IE, "TAX:IE:USC"),
    ("jurisdiction", "iso3166", "TAX", "CAT", "Éire", "Capital Acquisitions Tax", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("jurisdiction", "iso3166", "VEHICLE_REG", "VRT", "Ireland", "VRT", [], IE, "VEHICLE_REG:IE:VRT"),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "GB", "Income Tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("jurisdiction", "iso3166", "TAX", "VAT", "826", "VAT", [], UK, "TAX:UK:VAT"),
    ("jurisdiction", "iso3166", "SOCIAL_INSURANCE", "NIC", "United Kingdom", "National Insurance", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("jurisdiction", "iso3166", "TAX", "PERSONAL_ALLOWANCE", "gbr", "Personal Allowance", [], UK, "TAX:UK:PERSONAL_ALLOWANCE"),
    ("jurisdiction", "iso3166", "TAX", "XI_VAT_NUMBER", "GB-NIR", "XI VAT number", [], NI, "TAX:NI:XI_VAT_NUMBER"),
    ("jurisdiction", "iso3166", "EU_LAW", "GDPR", "Union européenne", "RGPD", [], EU, "EU_LAW:EU:GDPR"),
    ("jurisdiction", "iso3166", "EU_LAW", "OSS", "eu", "One-Stop Shop", [], EU, "EU_LAW:EU:ONE_STOP_SHOP"),
    ("jurisdiction", "iso3166", "TAX", "VAT", "France", "TVA", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "CORPORATION_TAX", "FRA", "impôt sur les sociétés", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "Guernsey", "income tax", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "VAT", "Deutschland", "Umsatzsteuer", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "GST", "CA", "GST", [], NONE, OOC),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "Gibraltar", "income tax", [], NONE, OOC),
    # --- no jurisdiction stated in the conversation
    ("unstated", "revenue", "SOCIAL_INSURANCE", "PRSI", "IE", "PRSI", [], NONE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("unstated", "govuk", "TAX", "HICBC", "UK", "HICBC", [], NONE, "TAX:UK:HIGH_INCOME_CHILD_BENEFIT_CHARGE"),
    ("unstated", "revenue", "VEHICLE_REG", "VRT", "IE", "VRT", [], NONE, "VEHICLE_REG:IE:VRT"),
    ("unstated", "eurlex", "EU_LAW", "GDPR", "EU", "GDPR", [], NONE, "EU_LAW:EU:GDPR"),
    ("unstated", "revenue", "TAX", "CGT", "IE", "CGT", [], NONE, UNSTATED),
    ("unstated", "govuk", "PENSIONS", "STATE_PENSION", "UK", "State Pension", [], NONE, UNSTATED),
    ("unstated", "revenue", "TAX", "SELF_ASSESSMENT", "IE", "self-assessment", [], NONE, UNSTATED),
]  # fmt: skip


def main() -> None:
    rows: list[dict[str, Any]] = []
    for n, (category, source, domain, kind, where, pref, alts, named, gold) in enumerate(CASES, 1):
        concept = {"domain": domain, "kind": kind, "jurisdiction": where, "prefLabel": pref,
                   "altLabels": alts}  # fmt: skip
        rows.append({"id": f"res7-{n:03d}", "category": category, "source": source,
                     "concept": concept, "jurisdictions": named, "gold": gold})  # fmt: skip
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(rows)} cases -> {OUT.relative_to(DATA.parent.parent)}")


if __name__ == "__main__":
    main()
