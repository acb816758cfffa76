# ruff: noqa: E501  (one case per line: the table is read and reviewed row by row)
"""Writes the third resolution set (issue 24): held out whole, never tuned on.

    .venv/bin/python bench/make_resolution_heldout3.py

Written on 2026-11-27, after the second set's held-out part had been looked at once (its
misses were read), and committed before any rule, label or screen was changed for this
session's work. Every case is held out: it is run at the end and reported beside the dev
sets, never used to choose a rule. Each case names where its wording comes from (``source``):

- ``eurlex``: the 49 EU acts' titles and short names in
  ``../shared/data/eu-legislation/eu-regulations-json`` (``full_name``, ``id``) and the
  official citations (CELEX numbers written as a reader writes them, "Regulation (EU)
  2016/679");
- ``eurovoc:<id>``: English and French labels of EuroVoc concepts
  (``engine/data/eurovoc_tax_social.json``): those naming a concept the seeds hold (VAT 4585,
  corporation tax 1331, capital gains tax 1323, stamp duty 4401, capital transfer tax 1324,
  unemployment insurance 3332, ...) and those naming a narrower or neighbouring one
  (VAT rate 4392, maternity leave 103, vehicle tax 4409, disability insurance 3412, ...);
- ``citizensinformation``, ``revenue``, ``govuk``: scheme and payment names as those sites
  write them ("Start-Up Relief for Entrepreneurs (SURE)", "formerly the Seed Capital
  Scheme"; "Working Family Payment", formerly "Family Income Supplement"; "Business Asset
  Disposal Relief", formerly "Entrepreneurs' Relief"), checked with the ``search`` tool;
- ``iso3166``: jurisdiction spellings (full ISO names, alpha-3, native names).

Categories: ``jurisdiction``, ``surface`` (acronyms in brackets, dotted acronyms, hyphens,
curly apostrophes, British/American spellings), ``former_name``, ``eurovoc``, ``sibling``
(names one word or letter apart, parent and child), ``national_law``, ``eu_act`` (EU acts the
graph does not hold, captured first by name and again by acronym or another spelling),
``new_repeat``, ``unstated``.

Gold: an existing concept id, ``new:<group>`` (every mention of a group should land on one
node) or ``skip:<reason>``. Cases run in file order (``bench/resolution_bench.py --cases``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
OUT = DATA / "resolution_heldout3.jsonl"

IE, UK, NI, EU = ["IE"], ["UK"], ["NI"], ["EU"]
OOC = "skip:out_of_coverage"
UNSTATED = "skip:jurisdiction_not_stated"

# (category, source, domain, kind, jurisdiction, prefLabel, altLabels, conversation, gold)
C = tuple[str, str, str, str, str, str, list[str], list[str], str]

CASES: list[C] = [
    # --- EU acts the graph does not hold: first by name, later by acronym or another spelling
    ("eu_act", "eurlex", "EU_LAW", "DIGITAL_SERVICES_ACT", "EU", "Digital Services Act", [], EU, "new:eu_dsa"),
    ("eu_act", "eurlex", "EU_LAW", "DIGITAL_MARKETS_ACT", "EU", "Digital Markets Act", [], EU, "new:eu_dma"),
    ("eu_act", "eurlex", "EU_LAW", "DATA_ACT", "EU", "Data Act", [], EU, "new:eu_data_act"),
    ("eu_act", "eurlex", "EU_LAW", "DATA_GOVERNANCE_ACT", "EU", "Data Governance Act", [], EU, "new:eu_dga"),
    ("eu_act", "eurlex", "EU_LAW", "CYBER_RESILIENCE_ACT", "EU", "Cyber Resilience Act", [], EU, "new:eu_cra"),
    ("eu_act", "eurlex", "EU_LAW", "CYBERSECURITY_ACT", "EU", "EU Cybersecurity Act", [], EU, "new:eu_csa"),
    ("eu_act", "eurlex", "EU_LAW", "CYBER_SOLIDARITY_ACT", "EU", "Cyber Solidarity Act", [], EU, "new:eu_cyber_solidarity"),
    ("eu_act", "eurlex", "EU_LAW", "DORA", "EU", "Digital Operational Resilience Act", ["DORA"], EU, "new:eu_dora"),
    ("eu_act", "eurlex", "EU_LAW", "MICA", "EU", "Markets in Crypto-Assets Regulation", ["MiCA"], EU, "new:eu_mica"),
    ("eu_act", "eurlex", "EU_LAW", "MIFID_II", "EU", "Markets in Financial Instruments Directive II", ["MiFID II"], EU, "new:eu_mifid2"),
    ("eu_act", "eurlex", "EU_LAW", "MIFIR", "EU", "Markets in Financial Instruments Regulation", [], EU, "new:eu_mifir"),
    ("eu_act", "eurlex", "EU_LAW", "MEDICAL_DEVICE_REGULATION", "EU", "Medical Device Regulation", [], EU, "new:eu_mdr"),
    ("eu_act", "eurlex", "EU_LAW", "IVDR", "EU", "In Vitro Diagnostic Medical Devices Regulation", [], EU, "new:eu_ivdr"),
    ("eu_act", "eurlex", "EU_LAW", "CSRD", "EU", "Corporate Sustainability Reporting Directive", [], EU, "new:eu_csrd"),
    ("eu_act", "eurlex", "EU_LAW", "CSDDD", "EU", "Corporate Sustainability Due Diligence Directive", [], EU, "new:eu_csddd"),
    ("eu_act", "eurlex", "EU_LAW", "SFDR", "EU", "Sustainable Finance Disclosure Regulation", [], EU, "new:eu_sfdr"),
    ("eu_act", "eurlex", "EU_LAW", "EU_TAXONOMY_REGULATION", "EU", "EU Taxonomy Regulation", [], EU, "new:eu_taxonomy"),
    ("eu_act", "eurlex", "EU_LAW", "NIS2", "EU", "NIS2 Directive", [], EU, "new:eu_nis2"),
    ("eu_act", "eurlex", "EU_LAW", "EPRIVACY_DIRECTIVE", "EU", "ePrivacy Directive", [], EU, "new:eu_eprivacy"),
    ("eu_act", "eurlex", "EU_LAW", "LAW_ENFORCEMENT_DIRECTIVE", "EU", "Law Enforcement Directive", [], EU, "new:eu_led"),
    ("eu_act", "eurlex", "EU_LAW", "PSD2", "EU", "Payment Services Directive 2", ["PSD2"], EU, "new:eu_psd2"),
    ("eu_act", "eurlex", "EU_LAW", "CBAM", "EU", "Carbon Border Adjustment Mechanism", [], EU, "new:eu_cbam"),
    ("eu_act", "eurlex", "EU_LAW", "EU_DEFORESTATION_REGULATION", "EU", "EU Deforestation Regulation", [], EU, "new:eu_eudr"),
    ("eu_act", "eurlex", "EU_LAW", "GENERAL_PRODUCT_SAFETY_REGULATION", "EU", "General Product Safety Regulation", [], EU, "new:eu_gpsr"),
    ("eu_act", "eurlex", "EU_LAW", "PRODUCT_LIABILITY_DIRECTIVE", "EU", "Product Liability Directive", [], EU, "new:eu_pld"),
    ("eu_act", "eurlex", "EU_LAW", "EUROPEAN_CHIPS_ACT", "EU", "European Chips Act", [], EU, "new:eu_chips"),
    ("eu_act", "eurlex", "EU_LAW", "CRITICAL_RAW_MATERIALS_ACT", "EU", "Critical Raw Materials Act", [], EU, "new:eu_crma"),
    # the same acts again, another conversation, another surface
    ("eu_act", "eurlex", "EU_LAW", "DSA", "IE", "DSA", ["Digital Services Act"], IE, "new:eu_dsa"),
    ("eu_act", "eurlex", "EU_LAW", "DIGITAL_SERVICES_ACT", "EU", "Digital Services Act (DSA)", [], EU, "new:eu_dsa"),
    ("eu_act", "eurlex", "EU_LAW", "DMA", "EU", "D.M.A.", [], EU, "new:eu_dma"),
    ("eu_act", "eurlex", "EU_LAW", "DIGITAL_MARKETS_ACT", "EU", "Digital-Markets Act", [], EU, "new:eu_dma"),
    ("eu_act", "eurlex", "EU_LAW", "DATA_ACT", "EU", "EU Data Act", [], EU, "new:eu_data_act"),
    ("eu_act", "eurlex", "EU_LAW", "DGA", "EU", "DGA", ["Data Governance Act"], EU, "new:eu_dga"),
    ("eu_act", "eurlex", "EU_LAW", "CRA", "EU", "CRA", [], EU, "new:eu_cra"),
    ("eu_act", "eurlex", "EU_LAW", "CYBERSECURITY_ACT", "EU", "Cybersecurity Act", [], EU, "new:eu_csa"),
    ("eu_act", "eurlex", "EU_LAW", "DORA", "IE", "D.O.R.A.", [], IE, "new:eu_dora"),
    ("eu_act", "eurlex", "EU_LAW", "MICA", "EU", "Markets in Crypto Assets Regulation", [], EU, "new:eu_mica"),
    ("eu_act", "eurlex", "EU_LAW", "MIFID2", "EU", "MiFID 2", [], EU, "new:eu_mifid2"),
    ("eu_act", "eurlex", "EU_LAW", "MIFIR", "EU", "MiFIR", ["Markets in Financial Instruments Regulation"], EU, "new:eu_mifir"),
    ("eu_act", "eurlex", "EU_LAW", "MEDICAL_DEVICES_REGULATION", "EU", "Medical Devices Regulation", [], EU, "new:eu_mdr"),
    ("eu_act", "eurlex", "EU_LAW", "CSRD", "EU", "CSRD", ["Corporate Sustainability Reporting Directive"], EU, "new:eu_csrd"),
    ("eu_act", "eurlex", "EU_LAW", "NIS_2", "EU", "NIS 2 Directive", [], EU, "new:eu_nis2"),
    ("eu_act", "eurlex", "EU_LAW", "E_PRIVACY_DIRECTIVE", "EU", "e-Privacy Directive", [], EU, "new:eu_eprivacy"),
    ("eu_act", "eurlex", "EU_LAW", "CBAM", "EU", "CBAM", [], EU, "new:eu_cbam"),
    ("eu_act", "eurlex", "EU_LAW", "DEFORESTATION_REGULATION", "EU", "Deforestation Regulation", [], EU, "new:eu_eudr"),
    ("eu_act", "eurlex", "EU_LAW", "CHIPS_ACT", "EU", "Chips Act", [], EU, "new:eu_chips"),
    # --- EU acts the graph holds, as readers write them
    ("surface", "eurlex", "EU_LAW", "GDPR", "IE", "G.D.P.R.", [], IE, "EU_LAW:EU:GDPR"),
    ("surface", "eurlex", "EU_LAW", "GENERAL_DATA_PROTECTION_REGULATION", "EU", "General Data-Protection Regulation", [], EU, "EU_LAW:EU:GDPR"),
    ("surface", "eurlex", "EU_LAW", "GDPR", "EU", "General Data Protection Regulation (GDPR)", [], EU, "EU_LAW:EU:GDPR"),
    ("surface", "eurlex", "EU_LAW", "REGULATION_2016_679", "EU", "Regulation (EU) 2016/679", [], EU, "EU_LAW:EU:GDPR"),
    ("surface", "eurlex", "EU_LAW", "AI_ACT", "IE", "Artificial Intelligence Act", [], IE, "EU_LAW:EU:AI_ACT"),
    ("surface", "eurlex", "EU_LAW", "REGULATION_2024_1689", "EU", "Regulation (EU) 2024/1689", [], EU, "EU_LAW:EU:AI_ACT"),
    ("surface", "eurlex", "EU_LAW", "AI_ACT", "EU", "AI-Act", [], EU, "EU_LAW:EU:AI_ACT"),
    ("surface", "eurlex", "EU_LAW", "VAT_DIRECTIVE", "EU", "Council Directive 2006/112/EC", [], EU, "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"),
    ("surface", "eurlex", "EU_LAW", "SOCIAL_SECURITY_COORDINATION", "EU", "Regulation (EC) No 883/2004", [], EU, "EU_LAW:EU:SOCIAL_SECURITY_COORDINATION"),
    ("surface", "eurlex", "EU_LAW", "ONE_STOP_SHOP", "EU", "One-Stop-Shop", [], EU, "EU_LAW:EU:ONE_STOP_SHOP"),
    ("sibling", "eurlex", "EU_LAW", "IMPORT_ONE_STOP_SHOP", "EU", "Import One-Stop Shop", [], EU, "new:eu_ioss"),
    ("sibling", "eurlex", "EU_LAW", "IOSS", "EU", "IOSS", ["Import One Stop Shop"], EU, "new:eu_ioss"),
    # --- EuroVoc labels of concepts the seeds hold
    ("eurovoc", "eurovoc:4585", "TAX", "TURNOVER_TAX", "IE", "turnover tax", [], IE, "TAX:IE:VAT"),
    ("eurovoc", "eurovoc:4585", "TAX", "TAXE_SUR_LE_CHIFFRE_D_AFFAIRES", "IE", "taxe sur le chiffre d'affaires", [], IE, "TAX:IE:VAT"),
    ("eurovoc", "eurovoc:4585", "TAX", "TVA", "UK", "TVA", [], UK, "TAX:UK:VAT"),
    ("eurovoc", "eurovoc:1331", "TAX", "CORPORATE_INCOME_TAX", "IE", "corporate income tax", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc", "eurovoc:1331", "TAX", "IMPOT_SUR_LES_BENEFICES", "IE", "impôt sur les bénéfices industriels et commerciaux", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc", "eurovoc:1331", "TAX", "PROFITS_TAX", "IE", "profits tax", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("eurovoc", "eurovoc:1323", "TAX", "IMPOT_SUR_LA_PLUS_VALUE", "UK", "impôt sur la plus-value", [], UK, "TAX:UK:CGT"),
    ("eurovoc", "eurovoc:1323", "TAX", "CAPITAL_GAINS_TAX", "IE", "Capital Gains Tax", [], IE, "TAX:IE:CGT"),
    ("eurovoc", "eurovoc:4401", "TAX", "STAMP_TAX", "IE", "stamp tax", [], IE, "TAX:IE:STAMP_DUTY"),
    ("eurovoc", "eurovoc:4401", "TAX", "TAXE_ASSIMILEE_AU_TIMBRE", "IE", "taxe assimilée au timbre", [], IE, "TAX:IE:STAMP_DUTY"),
    ("eurovoc", "eurovoc:4401", "TAX", "DROITS_DE_TIMBRE", "IE", "droits de timbre", [], IE, "TAX:IE:STAMP_DUTY"),
    ("eurovoc", "eurovoc:1324", "TAX", "CAPITAL_TRANSFER_TAX", "IE", "capital transfer tax", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc", "eurovoc:1324", "TAX", "DEATH_DUTY", "IE", "death duty", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc", "eurovoc:1324", "TAX", "IMPOT_SUR_LA_TRANSMISSION", "IE", "impôt sur la transmission", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("eurovoc", "eurovoc:1312", "TAX", "PERSONAL_INCOME_TAX", "UK", "personal income tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("eurovoc", "eurovoc:1326", "TAX", "IMPOT_SUR_LE_REVENU", "IE", "impôt sur le revenu", [], IE, "TAX:IE:INCOME_TAX"),
    ("eurovoc", "eurovoc:3332", "WELFARE", "UNEMPLOYMENT_INSURANCE", "IE", "unemployment insurance", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc", "eurovoc:3332", "WELFARE", "ASSURANCE_CHOMAGE", "IE", "assurance chômage", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("eurovoc", "eurovoc:3512", "WELFARE", "SICKNESS_BENEFIT", "IE", "sickness benefit", [], IE, "WELFARE:IE:ILLNESS_BENEFIT"),
    ("eurovoc", "eurovoc:3751", "PENSIONS", "RETIREMENT_PENSION", "UK", "pension de retraite", [], UK, "PENSIONS:UK:STATE_PENSION"),
    # EuroVoc labels of narrower or neighbouring concepts: new, never merged
    ("eurovoc", "eurovoc:4392", "TAX", "VAT_RATE", "IE", "VAT rate", [], IE, "new:ie_vat_rate"),
    ("eurovoc", "eurovoc:4392", "TAX", "TAUX_DE_TVA", "IE", "taux de TVA", [], IE, "new:ie_vat_rate"),
    ("eurovoc", "eurovoc:103", "WELFARE", "MATERNITY_LEAVE", "IE", "maternity leave", [], IE, "new:ie_maternity_leave"),
    ("eurovoc", "eurovoc:6924", "WELFARE", "PATERNITY_LEAVE", "IE", "paternity leave", [], IE, "new:ie_paternity_leave"),
    ("eurovoc", "eurovoc:6924", "WELFARE", "CONGE_DE_PATERNITE", "IE", "congé de paternité", [], IE, "new:ie_paternity_leave"),
    ("eurovoc", "eurovoc:3412", "WELFARE", "DISABILITY_ALLOWANCE", "IE", "Disability Allowance", [], IE, "new:ie_disability_allowance"),
    ("eurovoc", "eurovoc:4409", "TAX", "VEHICLE_EXCISE_DUTY", "UK", "Vehicle Excise Duty", [], UK, "new:uk_ved"),
    ("eurovoc", "eurovoc:4409", "TAX", "VEHICLE_TAX", "UK", "vehicle tax", [], UK, "new:uk_ved"),
    ("eurovoc", "eurovoc:4409", "TAX", "ROAD_TAX", "UK", "road tax", [], UK, "new:uk_ved"),
    ("eurovoc", "eurovoc:4407", "TAX", "FUEL_TAX", "IE", "fuel tax", [], IE, "new:ie_fuel_tax"),
    ("eurovoc", "eurovoc:2601", "WELFARE", "SURVIVORS_PENSION", "IE", "survivor's pension", [], IE, "new:ie_survivors_pension"),
    ("eurovoc", "eurovoc:2601", "WELFARE", "WIDOWS_PENSION", "IE", "widow's pension", [], IE, "new:ie_survivors_pension"),
    # --- Irish schemes as Citizens Information and Revenue write them
    ("surface", "revenue", "TAX", "USC", "IE", "Universal Social Charge (USC)", [], IE, "TAX:IE:USC"),
    ("surface", "revenue", "SOCIAL_INSURANCE", "PRSI", "IE", "Pay-Related Social Insurance (PRSI)", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("surface", "revenue", "TAX", "CAT", "IE", "Capital Acquisitions Tax (CAT)", [], IE, "TAX:IE:CAPITAL_ACQUISITIONS_TAX"),
    ("surface", "revenue", "TAX", "VAT", "IE", "Value-Added Tax (VAT)", [], IE, "TAX:IE:VAT"),
    ("surface", "revenue", "VEHICLE_REG", "VRT", "IE", "Vehicle Registration Tax (VRT)", [], IE, "VEHICLE_REG:IE:VRT"),
    ("surface", "revenue", "TAX", "HELP_TO_BUY", "IE", "Help to Buy (HTB) incentive", [], IE, "TAX:IE:HELP_TO_BUY"),
    ("surface", "revenue", "TAX", "RD_TAX_CREDIT", "IE", "Research and Development (R&D) Tax Credit", [], IE, "TAX:IE:RD_TAX_CREDIT"),
    ("surface", "revenue", "TAX", "PAYE", "IE", "Pay As You Earn (PAYE)", [], IE, "TAX:IE:PAYE"),
    ("surface", "revenue", "TAX", "PAYE", "IE", "P.A.Y.E.", [], IE, "TAX:IE:PAYE"),
    ("surface", "revenue", "TAX", "PAYE_MODERNIZATION", "IE", "PAYE modernization", [], IE, "new:ie_paye_modernisation"),
    ("surface", "revenue", "TAX", "CGT", "IE", "C.G.T.", [], IE, "TAX:IE:CGT"),
    ("surface", "revenue", "TAX", "RENT_TAX_CREDIT", "IE", "Rent Tax Credit", [], IE, "TAX:IE:RENT_TAX_CREDIT"),
    ("surface", "revenue", "TAX", "ENTREPRENEUR_RELIEF", "IE", "Revised Entrepreneur Relief", [], IE, "TAX:IE:ENTREPRENEUR_RELIEF"),
    ("surface", "citizensinformation", "WELFARE", "JOBSEEKERS_BENEFIT", "IE", "Jobseeker’s Benefit", [], IE, "WELFARE:IE:JOBSEEKERS_BENEFIT"),
    ("surface", "citizensinformation", "WELFARE", "JOBSEEKERS_ALLOWANCE", "IE", "Job-seekers Allowance", [], IE, "WELFARE:IE:JOBSEEKERS_ALLOWANCE"),
    ("surface", "citizensinformation", "PENSIONS", "STATE_PENSION_CONTRIBUTORY", "IE", "State Pension (Contributory)", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("surface", "citizensinformation", "PENSIONS", "STATE_PENSION_NON_CONTRIBUTORY", "IE", "State Pension (Non-Contributory)", [], IE, "PENSIONS:IE:STATE_PENSION_NON_CONTRIBUTORY"),
    ("surface", "citizensinformation", "PENSIONS", "AUTO_ENROLMENT", "IE", "Auto Enrolment", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("surface", "citizensinformation", "PENSIONS", "AUTOMATIC_ENROLLMENT", "IE", "Automatic Enrollment", [], IE, "PENSIONS:IE:AUTO_ENROLMENT"),
    ("surface", "citizensinformation", "WELFARE", "TREATMENT_BENEFIT_SCHEME", "IE", "Treatment Benefit Scheme", [], IE, "WELFARE:IE:TREATMENT_BENEFIT"),
    ("former_name", "citizensinformation", "WELFARE", "DISABILITY_BENEFIT", "IE", "Disability Benefit", [], IE, "WELFARE:IE:ILLNESS_BENEFIT"),
    ("former_name", "citizensinformation", "WELFARE", "UNEMPLOYMENT_ASSISTANCE", "IE", "Unemployment Assistance", [], IE, "WELFARE:IE:JOBSEEKERS_ALLOWANCE"),
    ("former_name", "citizensinformation", "PENSIONS", "OLD_AGE_CONTRIBUTORY_PENSION", "IE", "Old Age (Contributory) Pension", [], IE, "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY"),
    ("former_name", "citizensinformation", "WELFARE", "WORKING_FAMILY_PAYMENT", "IE", "Working Family Payment", [], IE, "new:ie_wfp"),
    ("former_name", "citizensinformation", "WELFARE", "FAMILY_INCOME_SUPPLEMENT", "IE", "Family Income Supplement", [], IE, "new:ie_wfp"),
    ("former_name", "revenue", "TAX", "SURE", "IE", "Start-Up Relief for Entrepreneurs", ["SURE"], IE, "new:ie_sure"),
    ("former_name", "revenue", "TAX", "SEED_CAPITAL_SCHEME", "IE", "Seed Capital Scheme", [], IE, "new:ie_sure"),
    ("former_name", "revenue", "TAX", "EII", "IE", "Employment Investment Incentive", ["EII"], IE, "new:ie_eii"),
    ("former_name", "revenue", "TAX", "EMPLOYMENT_AND_INVESTMENT_INCENTIVE", "IE", "Employment and Investment Incentive", [], IE, "new:ie_eii"),
    # siblings and children of Irish schemes: new, never merged
    ("sibling", "citizensinformation", "WELFARE", "PATERNITY_BENEFIT", "IE", "Paternity Benefit", [], IE, "new:ie_paternity_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "ADOPTIVE_BENEFIT", "IE", "Adoptive Benefit", [], IE, "new:ie_adoptive_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "CARERS_BENEFIT", "IE", "Carer's Benefit", [], IE, "new:ie_carers_benefit"),
    ("sibling", "citizensinformation", "WELFARE", "CARERS_ALLOWANCE", "IE", "Carer's Allowance", [], IE, "new:ie_carers_allowance"),
    ("sibling", "citizensinformation", "WELFARE", "JOBSEEKERS_TRANSITIONAL_PAYMENT", "IE", "Jobseeker's Transitional Payment", [], IE, "new:ie_jtp"),
    ("sibling", "citizensinformation", "WELFARE", "JOBSEEKERS_BENEFIT_SELF_EMPLOYED", "IE", "Jobseeker's Benefit (Self-Employed)", [], IE, "new:ie_jb_se"),
    ("sibling", "citizensinformation", "WELFARE", "INVALIDITY_PENSION", "IE", "Invalidity Pension", [], IE, "new:ie_invalidity_pension"),
    ("sibling", "citizensinformation", "WELFARE", "DENTAL_TREATMENT_BENEFIT", "IE", "Dental Treatment Benefit", [], IE, "new:ie_dental_treatment"),
    ("sibling", "revenue", "TAX", "HOME_CARER_TAX_CREDIT", "IE", "Home Carer Tax Credit", [], IE, "new:ie_home_carer_credit"),
    ("sibling", "revenue", "TAX", "EARNED_INCOME_TAX_CREDIT", "IE", "Earned Income Tax Credit", [], IE, "new:ie_earned_income_credit"),
    ("sibling", "revenue", "TAX", "HOME_RENOVATION_INCENTIVE", "IE", "Home Renovation Incentive", [], IE, "new:ie_hri"),
    ("sibling", "revenue", "TAX", "LOCAL_PROPERTY_TAX", "IE", "Local Property Tax (LPT)", [], IE, "new:ie_lpt"),
    ("sibling", "revenue", "TAX", "DIVIDEND_WITHHOLDING_TAX", "IE", "Dividend Withholding Tax", [], IE, "new:ie_dwt"),
    ("sibling", "revenue", "TAX", "DIRT", "IE", "Deposit Interest Retention Tax", ["DIRT"], IE, "new:ie_dirt"),
    ("sibling", "revenue", "TAX", "VACANT_HOMES_TAX", "IE", "Vacant Homes Tax", [], IE, "new:ie_vacant_homes"),
    ("sibling", "revenue", "TAX", "STAMP_DUTY_ON_SHARES", "IE", "stamp duty on shares", [], IE, "new:ie_stamp_duty_shares"),
    ("sibling", "revenue", "TAX", "USC_EXEMPTION", "IE", "USC exemption threshold", [], IE, "new:ie_usc_exemption"),
    ("new_repeat", "revenue", "TAX", "LPT", "IE", "LPT", [], IE, "new:ie_lpt"),
    ("new_repeat", "revenue", "TAX", "LOCAL_PROPERTY_TAX", "Ireland", "local property tax", [], IE, "new:ie_lpt"),
    ("new_repeat", "revenue", "TAX", "SURE", "IE", "SURE", ["Start-up Relief for Entrepreneurs"], IE, "new:ie_sure"),
    ("new_repeat", "citizensinformation", "WELFARE", "CARERS_BENEFIT", "IE", "Carers Benefit", [], IE, "new:ie_carers_benefit"),
    ("new_repeat", "citizensinformation", "WELFARE", "PATERNITY_BENEFIT", "IRL", "Paternity benefit", [], IE, "new:ie_paternity_benefit"),
    ("new_repeat", "revenue", "TAX", "DIRT", "IE", "D.I.R.T.", [], IE, "new:ie_dirt"),
    ("new_repeat", "revenue", "TAX", "MOTOR_TAX", "IE", "Motor Tax", [], IE, "new:ie_motor_tax"),
    ("new_repeat", "revenue", "TAX", "ROAD_TAX", "IE", "road tax", [], IE, "new:ie_motor_tax"),
    # --- the UK as GOV.UK writes it
    ("surface", "govuk", "TAX", "VAT", "UK", "Value Added Tax", [], UK, "TAX:UK:VAT"),
    ("surface", "govuk", "SOCIAL_INSURANCE", "NATIONAL_INSURANCE_CONTRIBUTIONS", "UK", "National Insurance Contributions (NICs)", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("surface", "govuk", "TAX", "SELF_ASSESSMENT", "UK", "Self-Assessment", [], UK, "TAX:UK:SELF_ASSESSMENT"),
    ("surface", "govuk", "WELFARE", "HICBC", "UK", "High Income Child Benefit Charge", [], UK, "TAX:UK:HIGH_INCOME_CHILD_BENEFIT_CHARGE"),
    ("surface", "govuk", "TAX", "BADR", "UK", "Business Asset Disposal Relief (BADR)", [], UK, "TAX:UK:BUSINESS_ASSET_DISPOSAL_RELIEF"),
    ("former_name", "govuk", "TAX", "ENTREPRENEURS_RELIEF", "UK", "Entrepreneurs' Relief", [], UK, "TAX:UK:BUSINESS_ASSET_DISPOSAL_RELIEF"),
    ("surface", "govuk", "PENSIONS", "STATE_PENSION", "UK", "State Pension", [], UK, "PENSIONS:UK:STATE_PENSION"),
    ("sibling", "govuk", "TAX", "INHERITANCE_TAX", "UK", "Inheritance Tax", [], UK, "new:uk_iht"),
    ("sibling", "govuk", "TAX", "STAMP_DUTY_LAND_TAX", "UK", "Stamp Duty Land Tax", [], UK, "new:uk_sdlt"),
    ("sibling", "govuk", "TAX", "MARRIAGE_ALLOWANCE", "UK", "Marriage Allowance", [], UK, "new:uk_marriage_allowance"),
    ("sibling", "govuk", "TAX", "PERSONAL_SAVINGS_ALLOWANCE", "UK", "Personal Savings Allowance", [], UK, "new:uk_psa"),
    ("sibling", "govuk", "TAX", "BLIND_PERSONS_ALLOWANCE", "UK", "Blind Person's Allowance", [], UK, "new:uk_bpa"),
    ("sibling", "govuk", "WELFARE", "JOBSEEKERS_ALLOWANCE", "UK", "Jobseeker's Allowance", [], UK, "new:uk_jsa"),
    ("sibling", "govuk", "WELFARE", "MATERNITY_ALLOWANCE", "UK", "Maternity Allowance", [], UK, "new:uk_maternity_allowance"),
    ("sibling", "govuk", "WELFARE", "STATUTORY_MATERNITY_PAY", "UK", "Statutory Maternity Pay", [], UK, "new:uk_smp"),
    ("sibling", "govuk", "WELFARE", "UNIVERSAL_CREDIT", "UK", "Universal Credit", [], UK, "new:uk_universal_credit"),
    ("sibling", "govuk", "PENSIONS", "PENSION_CREDIT", "UK", "Pension Credit", [], UK, "new:uk_pension_credit"),
    ("sibling", "govuk", "WELFARE", "ESA", "UK", "Employment and Support Allowance", ["ESA"], UK, "new:uk_esa"),
    ("sibling", "govuk", "TAX", "TAX_FREE_CHILDCARE", "UK", "Tax-Free Childcare", [], UK, "new:uk_tfc"),
    ("new_repeat", "govuk", "TAX", "IHT", "UK", "IHT", ["Inheritance Tax"], UK, "new:uk_iht"),
    ("new_repeat", "govuk", "TAX", "SDLT", "GBR", "SDLT", [], UK, "new:uk_sdlt"),
    ("new_repeat", "govuk", "WELFARE", "JSA", "UK", "JSA", ["Jobseekers Allowance"], UK, "new:uk_jsa"),
    ("new_repeat", "govuk", "WELFARE", "ESA", "United Kingdom", "ESA", [], UK, "new:uk_esa"),
    ("new_repeat", "govuk", "TAX", "TAX_FREE_CHILDCARE", "UK", "tax free childcare", [], UK, "new:uk_tfc"),
    # --- national laws that mirror EU law
    ("national_law", "revenue", "DATA_PROTECTION", "DATA_PROTECTION_ACT_2018", "IE", "Data Protection Act 2018", [], IE, "new:ie_dpa_2018"),
    ("national_law", "govuk", "DATA_PROTECTION", "DATA_PROTECTION_ACT_2018", "UK", "Data Protection Act 2018", [], UK, "new:uk_dpa_2018"),
    ("national_law", "govuk", "DIGITAL", "ONLINE_SAFETY_ACT", "UK", "Online Safety Act 2023", [], UK, "new:uk_osa"),
    ("national_law", "citizensinformation", "DIGITAL", "ONLINE_SAFETY_AND_MEDIA_REGULATION_ACT", "IE", "Online Safety and Media Regulation Act 2022", [], IE, "new:ie_osmr"),
    ("national_law", "govuk", "DIGITAL", "NIS_REGULATIONS", "UK", "Network and Information Systems Regulations 2018", [], UK, "new:uk_nis_regs"),
    ("national_law", "revenue", "TAX", "VATCA_2010", "IE", "Value-Added Tax Consolidation Act 2010", [], IE, "new:ie_vatca"),
    ("national_law", "govuk", "DATA_PROTECTION", "UK_GDPR", "UK", "United Kingdom GDPR", [], UK, "new:uk_gdpr"),
    ("national_law", "govuk", "DATA_PROTECTION", "UK_GDPR", "UK", "UK G.D.P.R.", [], UK, "new:uk_gdpr"),
    # --- jurisdiction spellings
    ("jurisdiction", "iso3166", "SOCIAL_INSURANCE", "PRSI", "Republic of Ireland", "PRSI", [], IE, "SOCIAL_INSURANCE:IE:PRSI"),
    ("jurisdiction", "iso3166", "TAX", "USC", "Éire", "USC", [], IE, "TAX:IE:USC"),
    ("jurisdiction", "iso3166", "TAX", "CORPORATION_TAX", "IRELAND", "Corporation Tax", [], IE, "TAX:IE:CORPORATION_TAX"),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "United Kingdom of Great Britain and Northern Ireland", "Income Tax", [], UK, "TAX:UK:INCOME_TAX"),
    ("jurisdiction", "iso3166", "SOCIAL_INSURANCE", "NATIONAL_INSURANCE", "Great Britain", "National Insurance", [], UK, "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE"),
    ("jurisdiction", "iso3166", "TAX", "CGT", "U.K", "CGT", [], UK, "TAX:UK:CGT"),
    ("jurisdiction", "iso3166", "TAX", "WINDSOR_FRAMEWORK", "GB-NIR", "Northern Ireland Protocol", [], NI, "new:ni_protocol"),
    ("jurisdiction", "iso3166", "EU_LAW", "GDPR", "European Union", "GDPR", [], EU, "EU_LAW:EU:GDPR"),
    ("jurisdiction", "iso3166", "EU_LAW", "AI_ACT", "E.U.", "AI Act", [], EU, "EU_LAW:EU:AI_ACT"),
    ("jurisdiction", "iso3166", "EU_LAW", "GDPR", "DE", "GDPR", [], [], "EU_LAW:EU:GDPR"),
    ("jurisdiction", "iso3166", "EU_LAW", "AI_ACT", "FRA", "AI Act", [], [], "EU_LAW:EU:AI_ACT"),
    ("jurisdiction", "iso3166", "TAX", "VAT", "Deutschland", "Mehrwertsteuer", [], [], OOC),
    ("jurisdiction", "iso3166", "TAX", "INCOME_TAX", "FRA", "impôt sur le revenu", [], [], OOC),
    ("jurisdiction", "iso3166", "WELFARE", "CHILD_BENEFIT", "Netherlands", "child benefit", [], [], OOC),
    ("jurisdiction", "iso3166", "TAX", "INHERITANCE_TAX", "USA", "inheritance tax", [], [], OOC),
    ("jurisdiction", "iso3166", "TAX", "CORPORATION_TAX", "POL", "corporation tax", [], [], OOC),
    # --- no jurisdiction stated in the conversation
    ("unstated", "revenue", "TAX", "USC", "IE", "Universal Social Charge", [], [], "TAX:IE:USC"),
    ("unstated", "revenue", "TAX", "INCOME_TAX", "IE", "income tax", [], [], UNSTATED),
    ("unstated", "govuk", "TAX", "CGT", "UK", "capital gains tax", [], [], UNSTATED),
    ("unstated", "citizensinformation", "WELFARE", "CARERS_ALLOWANCE", "IE", "Carer's Allowance", [], [], UNSTATED),
    ("unstated", "govuk", "WELFARE", "UNIVERSAL_CREDIT", "UK", "Universal Credit", [], [], UNSTATED),
]  # fmt: skip


def main() -> None:
    rows: list[dict[str, Any]] = []
    for n, (category, source, domain, kind, where, pref, alts, named, gold) in enumerate(CASES, 1):
        concept = {"domain": domain, "kind": kind, "jurisdiction": where, "prefLabel": pref,
                   "altLabels": alts}  # fmt: skip
        rows.append({"id": f"res3-{n:03d}", "category": category, "source": source,
                     "concept": concept, "jurisdictions": named, "gold": gold})  # fmt: skip
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(rows)} cases -> {OUT.relative_to(DATA.parent.parent)}")


if __name__ == "__main__":
    main()
