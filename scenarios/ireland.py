"""Irish income tax, USC and PRSI for one snapshot, from the parameters the graph holds.

Deliberate simplifications, each said in the result as a gap rather than hidden:

- Income is a year's figure, paid evenly: PRSI weekly tests use income / 52 (the tapered
  credit is computed per week, as gov.ie does, times 52), and a rate that changes within the
  year applies to the months it is in force (pay as 12 equal monthly amounts; the Class S
  blended rate of gov.ie, 4.025 % for 2024, is the same rule).
- Capital gains tax: each disposal's gain is proceeds less cost and allowable expenses; the
  reliefs the graph's conditions grant come off or change the rate (principal private
  residence exempts the share used as the home; revised entrepreneur relief charges the
  qualifying gains at its rate within the lifetime limit; ADR 0086, ``scenarios/reliefs.py``);
  the year's losses and then losses brought forward come off the gains (s.31), then the annual
  exemption (s.601, which never creates or increases a loss carried forward), the rest at the
  graph's rate; the losses left to carry forward are a line. Always incomplete (a gap): the
  2011-2014 property relief, indexation, retirement relief to a child or above its limit
  beside other disposals or losses (the year's only disposal: marginal relief caps the tax at
  half the excess), limits on losses
  (connected persons, development land), a spouse's disposals.
- Credits of some households, from ``seeds/rules/ie_credits.yaml`` (ADR 0091): the rent tax
  credit (20% of the rent up to the single or jointly assessed amount, when the tenancy is
  registered; not stated: a gap), the single person child carer credit and its wider band, the
  widowed person credit (no dependent children) and the widowed parent credit (the five years
  after the year of bereavement), pension contribution relief (deducted from income for income
  tax only, up to the age-related percentage of earnings within the earnings limit), separate
  assessment (each on their own income with a single band, the married credit halved, unused
  band passed to the other up to a jointly assessed couple's band and unused credits other than
  the employee credit passed too; the total equals joint assessment's).
- Not built, each a gap: the exemption limit and marginal relief at 65+, the year of
  bereavement, the age credit under separate assessment, USC reduced rates (70+ or full
  medical card), PRSI at 66+ and on unearned income, non-residents.

Every amount is rounded half up to the cent per line; a total is the sum of its lines (income
tax never below zero: credits are not refundable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from scenarios.ledger import ZERO, Ledger
from scenarios.models import Facts
from scenarios.parameters import Param
from scenarios.reliefs import relieve
from scenarios.result import CENT, Line, cents

__all__ = ["evaluate_ireland"]

WEEKS = Decimal(52)
MONTHS = Decimal(12)


@dataclass(frozen=True)
class _Person:
    who: str
    paye: Decimal
    self_employed: Decimal
    other: Decimal
    age: int | None

    @property
    def income(self) -> Decimal:
        return self.paye + self.self_employed + self.other


def _people(facts: Facts) -> list[_Person]:
    you = _Person(
        "you", facts.paye_income, facts.self_employed_income, facts.other_income, facts.age
    )
    if not facts.couple:
        return [you]
    spouse = _Person(
        "spouse",
        facts.spouse_paye_income,
        facts.spouse_self_employed_income,
        facts.spouse_other_income,
        facts.spouse_age,
    )
    return [you, spouse]


def _eur(amount: Decimal) -> str:
    return f"€{amount:,.2f}"


def _pct(param: Param) -> str:
    return f"{param.value.normalize():f}%"


def evaluate_ireland(ledger: Ledger, facts: Facts) -> None:
    """Append the income tax, USC and PRSI lines of ``facts`` to ``ledger``."""
    if not facts.resident:
        ledger.gap("all", "you", "the taxation of non-residents is not built", "resident")
        return
    people = _people(facts)
    _income_tax(ledger, facts, people)
    for person in people:
        if person.income > 0 or person.who == "you":
            _usc(ledger, facts, person)
            _prsi(ledger, person)
    if facts.disposals:
        _cgt(ledger, facts)


# --- income tax -----------------------------------------------------------------------------


def _income_tax(ledger: Ledger, facts: Facts, people: list[_Person]) -> None:
    tax = "income_tax"
    if facts.couple:
        if facts.assessment is None:
            ledger.gap(
                tax, "couple", "cannot tell: how the couple is assessed is not stated", "assessment"
            )
        elif facts.assessment == "joint":
            _joint(ledger, facts, people)
        elif facts.assessment == "separate_assessment":
            _separate_assessment(ledger, facts, people)
        else:
            for person in people:
                _single(ledger, facts, person, one_parent=False)
        return
    if facts.status == "widowed":
        _widowed(ledger, facts, people[0])
        return
    _single(ledger, facts, people[0], one_parent=facts.single_person_child_carer)


# The age-related limits of pension contribution relief: (under this age, the rate's node).
_PENSION_AGES: tuple[tuple[int | None, str], ...] = (
    (30, "IE:RATE:PENSION_RELIEF_UNDER_30"),
    (40, "IE:RATE:PENSION_RELIEF_30_39"),
    (50, "IE:RATE:PENSION_RELIEF_40_49"),
    (55, "IE:RATE:PENSION_RELIEF_50_54"),
    (60, "IE:RATE:PENSION_RELIEF_55_59"),
    (None, "IE:RATE:PENSION_RELIEF_60_PLUS"),
)


def _pension_relief(ledger: Ledger, facts: Facts, person: _Person, who: str) -> list[Line]:
    """The pension contributions deducted from ``person``'s income for income tax (not USC or
    PRSI): at most the age-related percentage of earnings up to the earnings limit; a line of no
    tax whose ``base`` is the deduction."""
    if person.who != "you" or facts.pension_contributions <= 0:
        return []
    if person.age is None:
        ledger.gap(
            "income_tax",
            who,
            "cannot tell the limit of pension contribution relief: age not stated (not deducted)",
            "age",
        )
        return []
    base = next(b for under, b in _PENSION_AGES if under is None or person.age < under)
    found = ledger.need("income_tax", who, base, "IE:THRESHOLD:PENSION_EARNINGS_LIMIT")
    if found is None:
        return []
    rate, cap = found
    earnings = person.paye + person.self_employed
    limit = cents(min(earnings, cap.value) * rate.fraction)
    relief = min(facts.pension_contributions, limit)
    over = facts.pension_contributions - relief
    note = f"; {_eur(over)} over the limit carries forward" if over > 0 else ""
    return [
        ledger.line(
            "income_tax",
            who,
            f"pension_relief_{person.who}",
            f"Pension contributions {_eur(relief)} deducted from income (limit {_pct(rate)} of "
            f"{_eur(min(earnings, cap.value))} at age {person.age}{note})",
            ZERO,
            [rate, cap],
            relief,
        )
    ]


def _deducted(lines: list[Line]) -> Decimal:
    return sum((ln.base or ZERO for ln in lines), ZERO)


def _rent_credit(ledger: Ledger, facts: Facts, who: str, couple: bool) -> list[Line]:
    """20% of the rent paid up to the graph's amount for a single person or a jointly assessed
    couple, when the tenancy is registered (a condition of the graph's rent credit)."""
    if facts.rent_paid <= 0 or facts.tenancy_registered is False:
        return []
    if facts.tenancy_registered is None:
        ledger.gap(
            "income_tax",
            who,
            "cannot tell whether the rent tax credit applies: whether the tenancy is registered "
            "with the RTB is not stated (not given)",
            "tenancy_registered",
        )
        return []
    base = "IE:RELIEF:RENT_TAX_CREDIT_COUPLE" if couple else "IE:RELIEF:RENT_TAX_CREDIT_SINGLE"
    found = ledger.need("income_tax", who, base, "IE:RATE:IT_STANDARD")
    if found is None:
        return []
    most, standard = found
    credit = min(facts.rent_paid * standard.fraction, most.value)
    return [
        ledger.line(
            "income_tax",
            who,
            "credit_rent",
            f"Rent tax credit: {_pct(standard)} of {_eur(facts.rent_paid)} rent, up to "
            f"{_eur(most.value)}",
            -credit,
            [most, standard],
            facts.rent_paid,
            nodes=["IE:RELIEF:RENT_TAX_CREDIT", "IE:CONDITION:RENT_CREDIT_REGISTERED_TENANCY"],
        )
    ]


def _age_credit(ledger: Ledger, who: str, ages: list[int | None], base: str) -> list[Line]:
    if not any(age is not None and age >= 65 for age in ages):
        if any(age is None for age in ages):
            ledger.gap(
                "income_tax",
                who,
                "cannot tell whether the age tax credit (65 or over) applies: age not stated",
                "age",
            )
        return []
    ledger.gap(
        "income_tax",
        who,
        "the exemption limit and marginal relief at 65 or over are not built: the tax may be lower",
        "age",
    )
    found = ledger.need("income_tax", who, base)
    if found is None:
        return []
    (credit,) = found
    return [ledger.line("income_tax", who, "credit_age", "Age tax credit", -credit.value, [credit])]


def _charge(
    ledger: Ledger, who: str, income: Decimal, band: Decimal, band_params: list[Param]
) -> list[Line] | None:
    rates = ledger.need("income_tax", who, "IE:RATE:IT_STANDARD", "IE:RATE:IT_HIGHER")
    if rates is None:
        return None
    standard, higher = rates
    at_standard = min(income, band)
    at_higher = income - at_standard
    return [
        ledger.line(
            "income_tax",
            who,
            "standard_rate",
            f"{_eur(at_standard)} at the standard rate of {_pct(standard)}",
            at_standard * standard.fraction,
            [standard, *band_params],
            at_standard,
        ),
        ledger.line(
            "income_tax",
            who,
            "higher_rate",
            f"{_eur(at_higher)} at the higher rate of {_pct(higher)}",
            at_higher * higher.fraction,
            [higher, *band_params],
            at_higher,
        ),
    ]


def _work_credits(ledger: Ledger, person: _Person, who: str) -> list[Line]:
    """Employee credit on PAYE income, earned income credit on trading income, capped together."""
    lines: list[Line] = []
    standard = ledger.params.get("IE:RATE:IT_STANDARD")
    if standard is None:
        return lines
    employee_used = ZERO
    if person.paye > 0:
        found = ledger.need("income_tax", who, "IE:RELIEF:EMPLOYEE_TAX_CREDIT")
        if found is not None:
            (employee,) = found
            employee_used = min(employee.value, person.paye * standard.fraction)
            lines.append(
                ledger.line(
                    "income_tax",
                    who,
                    f"credit_employee_{person.who}",
                    f"Employee tax credit ({person.who})",
                    -employee_used,
                    [employee, standard],
                )
            )
    if person.self_employed > 0:
        found = ledger.need(
            "income_tax", who, "IE:RELIEF:EARNED_INCOME_CREDIT", "IE:RELIEF:EMPLOYEE_TAX_CREDIT"
        )
        if found is not None:
            earned, employee = found
            allowed = min(earned.value, person.self_employed * standard.fraction)
            allowed = max(min(allowed, employee.value - employee_used), ZERO)
            lines.append(
                ledger.line(
                    "income_tax",
                    who,
                    f"credit_earned_{person.who}",
                    f"Earned income tax credit ({person.who})",
                    -allowed,
                    [earned, employee, standard],
                )
            )
    return lines


def _widowed(ledger: Ledger, facts: Facts, person: _Person) -> None:
    """After the year of bereavement: the single person's band and credit, with the widowed
    person credit (no dependent children) or the widowed parent credit (the five years after),
    and the single person child carer credit and band where claimed."""
    tax, who = "income_tax", person.who
    if facts.bereaved_in is None:
        ledger.gap(
            tax,
            who,
            "cannot tell which widowed person's credits apply: the year of bereavement is not "
            "stated",
            "bereaved_in",
        )
        return
    after = facts.tax_year - facts.bereaved_in
    if after == 0:
        ledger.gap(
            tax,
            who,
            "the year of bereavement is not built (the married credit and band if you were the "
            "assessable spouse, else the widowed credit from the date of death)",
            "bereaved_in",
        )
        return
    extras: list[tuple[str, str, str]] = []
    if facts.dependent_children == 0:
        extras.append(
            ("credit_widowed", "Widowed person tax credit", "IE:RELIEF:WIDOWED_PERSON_CREDIT")
        )
    elif after <= 5:
        extras.append(
            (
                "credit_widowed_parent",
                f"Widowed parent tax credit ({after} year(s) after bereavement)",
                f"IE:RELIEF:WIDOWED_PARENT_CREDIT_Y{after}",
            )
        )
    _single(ledger, facts, person, one_parent=facts.single_person_child_carer, extras=extras)


def _single(
    ledger: Ledger,
    facts: Facts,
    person: _Person,
    one_parent: bool,
    extras: Sequence[tuple[str, str, str]] = (),
) -> None:
    who = person.who
    band_base = "IE:THRESHOLD:SRB_ONE_PARENT" if one_parent else "IE:THRESHOLD:SRB_SINGLE"
    bases = [band_base, "IE:RELIEF:PERSONAL_TAX_CREDIT_SINGLE"]
    if one_parent:
        extras = [
            *extras,
            ("credit_spccc", "Single person child carer credit", "IE:RELIEF:SPCCC"),
        ]
    found = ledger.need("income_tax", who, *bases, *(base for _, _, base in extras))
    if found is None:
        return
    band, personal, *extra_params = found
    relief = _pension_relief(ledger, facts, person, who)
    charges = _charge(ledger, who, person.income - _deducted(relief), band.value, [band])
    if charges is None:
        return
    credits = [
        ledger.line(
            "income_tax",
            who,
            "credit_personal",
            "Single person tax credit",
            -personal.value,
            [personal],
        )
    ]
    for (key, label, _), param in zip(extras, extra_params, strict=True):
        credits.append(ledger.line("income_tax", who, key, label, -param.value, [param]))
    credits += _work_credits(ledger, person, who)
    credits += _age_credit(ledger, who, [person.age], "IE:RELIEF:AGE_TAX_CREDIT_SINGLE")
    if who == "you":
        credits += _rent_credit(ledger, facts, who, couple=False)
    ledger.total("income_tax", who, relief + charges + credits, floor_zero=True)


def _joint_band(ledger: Ledger, who: str, incomes: list[Decimal]) -> tuple[Decimal, list[Param]]:
    """A jointly assessed couple's standard rate band: the one-income band, increased by the
    lower income up to the graph's maximum when both have income (None params: a gap)."""
    found = ledger.need("income_tax", who, "IE:THRESHOLD:SRB_MARRIED_ONE_INCOME")
    if found is None:
        return ZERO, []
    band, params = found[0].value, [found[0]]
    lower = min(incomes)
    if lower > 0:
        increase = ledger.need("income_tax", who, "IE:THRESHOLD:SRB_MARRIED_INCREASE_MAX")
        if increase is None:
            return ZERO, []
        band += min(lower, increase[0].value)
        params.append(increase[0])
    return band, params


def _joint(ledger: Ledger, facts: Facts, people: list[_Person]) -> None:
    who = "couple"
    found = ledger.need("income_tax", who, "IE:RELIEF:PERSONAL_TAX_CREDIT_MARRIED")
    if found is None:
        return
    (personal,) = found
    reliefs = {p.who: _pension_relief(ledger, facts, p, who) for p in people}
    incomes = [p.income - _deducted(reliefs[p.who]) for p in people]
    band, band_params = _joint_band(ledger, who, incomes)
    if not band_params:
        return
    charges = _charge(ledger, who, sum(incomes, ZERO), band, band_params)
    if charges is None:
        return
    credits = [
        ledger.line(
            "income_tax",
            who,
            "credit_personal",
            "Married person or civil partner tax credit",
            -personal.value,
            [personal],
        )
    ]
    for person in people:
        credits += _work_credits(ledger, person, who)
    credits += _age_credit(ledger, who, [p.age for p in people], "IE:RELIEF:AGE_TAX_CREDIT_MARRIED")
    credits += _rent_credit(ledger, facts, who, couple=True)
    lines = [ln for p in people for ln in reliefs[p.who]] + charges + credits
    ledger.total("income_tax", who, lines, floor_zero=True)


def _separate_assessment(ledger: Ledger, facts: Facts, people: list[_Person]) -> None:
    """Each spouse taxed on their own income with a single person's band; the married credit
    divided equally; a spouse's unused band passes to the other up to a jointly assessed couple's
    band, and unused credits (not the employee credit) pass too (TCA 1997 s.1024)."""
    tax = "income_tax"
    if any(p.age is not None and p.age >= 65 for p in people):
        ledger.gap(tax, "couple", "the age credit under separate assessment is not built", "age")
    found = ledger.need(
        tax, "couple", "IE:THRESHOLD:SRB_SINGLE", "IE:RELIEF:PERSONAL_TAX_CREDIT_MARRIED"
    )
    if found is None:
        return
    single, personal = found
    reliefs = {p.who: _pension_relief(ledger, facts, p, p.who) for p in people}
    incomes = {p.who: p.income - _deducted(reliefs[p.who]) for p in people}
    joint, joint_params = _joint_band(ledger, "couple", list(incomes.values()))
    if not joint_params:
        return
    used = {who: min(income, single.value) for who, income in incomes.items()}
    parts: dict[str, tuple[list[Line], list[Line], Decimal]] = {}
    for person in people:
        (other,) = [w for w in incomes if w != person.who]
        unused_other = max(single.value - incomes[other], ZERO)
        band = min(single.value + unused_other, joint - used[other])
        charges = _charge(ledger, person.who, incomes[person.who], band, [single, *joint_params])
        if charges is None:
            return
        half = ledger.line(
            tax,
            person.who,
            "credit_personal",
            "Half the married person or civil partner tax credit",
            -personal.value / 2,
            [personal],
        )
        work = _work_credits(ledger, person, person.who)
        own = [half]
        if person.who == "you":
            own += _rent_credit(ledger, facts, person.who, couple=False)
        before = sum((ln.amount for ln in [*charges, *work]), ZERO)
        # the credits other than the employee credit this spouse cannot use
        spare = min(max(-(before + sum((ln.amount for ln in own), ZERO)), ZERO),
                    -sum((ln.amount for ln in own), ZERO))  # fmt: skip
        parts[person.who] = (reliefs[person.who] + charges + work + own, own, spare)
    for person in people:
        (other,) = [w for w in incomes if w != person.who]
        lines, _, _ = parts[person.who]
        spare = parts[other][2]
        if spare > 0:
            lines = [
                *lines,
                ledger.line(
                    tax,
                    person.who,
                    "credit_transferred",
                    f"Tax credits the {other} cannot use",
                    -spare,
                    [personal],
                ),
            ]
        ledger.total(tax, person.who, lines, floor_zero=True)


# --- USC ------------------------------------------------------------------------------------

_USC_BANDS = (
    ("IE:RATE:USC_BAND_1", None, "IE:THRESHOLD:USC_BAND_1_CEILING"),
    ("IE:RATE:USC_BAND_2", "IE:THRESHOLD:USC_BAND_1_CEILING", "IE:THRESHOLD:USC_BAND_2_CEILING"),
    ("IE:RATE:USC_BAND_3", "IE:THRESHOLD:USC_BAND_2_CEILING", "IE:THRESHOLD:USC_BAND_3_CEILING"),
    ("IE:RATE:USC_BAND_4", "IE:THRESHOLD:USC_BAND_3_CEILING", None),
)


def _usc(ledger: Ledger, facts: Facts, person: _Person) -> None:
    who, tax = person.who, "usc"
    if (person.age is not None and person.age >= 70) or (facts.medical_card and who == "you"):
        ledger.gap(
            tax,
            who,
            "the reduced USC rates (70 or over, or a full medical card, with "
            "income of €60,000 or less) are not built",
            "age",
        )
    bases = sorted({b for band in _USC_BANDS for b in band if b is not None})
    found = ledger.need(tax, who, "IE:THRESHOLD:USC_EXEMPTION", *bases)
    if found is None:
        return
    exemption = found[0]
    params = dict(zip(bases, found[1:], strict=True))
    income = person.income
    if income <= exemption.value:
        line = ledger.line(
            tax,
            who,
            "exempt",
            f"{_eur(income)} is within the exemption limit",
            ZERO,
            [exemption],
            income,
        )
        ledger.total(tax, who, [line])
        return
    lines = []
    for n, (rate_id, low_id, high_id) in enumerate(_USC_BANDS, start=1):
        rate = params[rate_id]
        low = params[low_id].value if low_id else ZERO
        high = params[high_id].value if high_id else income
        base = min(income, high) - low
        if base <= 0:
            continue
        cited = [rate, exemption] + [params[b] for b in (low_id, high_id) if b]
        lines.append(
            ledger.line(
                tax,
                who,
                f"band_{n}",
                f"{_eur(base)} at {_pct(rate)}",
                base * rate.fraction,
                cited,
                base,
            )
        )
    non_paye = person.self_employed + person.other
    if non_paye > 0:
        surcharge = ledger.need(tax, who, "IE:RATE:USC_SURCHARGE", "IE:THRESHOLD:USC_SURCHARGE")
        if surcharge is not None and non_paye > surcharge[1].value:
            excess = non_paye - surcharge[1].value
            lines.append(
                ledger.line(
                    tax,
                    who,
                    "surcharge",
                    f"Surcharge of {_pct(surcharge[0])} on non-PAYE income "
                    f"above {_eur(surcharge[1].value)}",
                    excess * surcharge[0].fraction,
                    surcharge,
                    excess,
                )
            )
    ledger.total(tax, who, lines)


# --- PRSI -----------------------------------------------------------------------------------


def _months(period: Param, year: int) -> int:
    """The months of ``year`` whose first day falls within ``period``."""
    return sum(period.valid_from <= date(year, m, 1) <= period.valid_to for m in range(1, 13))


def _prsi(ledger: Ledger, person: _Person) -> None:
    who, tax = person.who, "prsi"
    year = ledger.params.tax_year
    lines: list[Line] = []
    if person.other > 0:
        ledger.gap(
            tax, who, "PRSI on unearned income (rents, investments) is not built", "other_income"
        )
    if person.age is not None and person.age >= 66:
        ledger.gap(
            tax,
            who,
            "PRSI at 66 or over depends on the State Pension (Contributory): not built",
            "age",
        )
        return
    if person.paye > 0:
        lines += _class_a(ledger, who, person.paye, year)
    if person.self_employed > 0:
        lines += _class_s(ledger, who, person.self_employed, year)
    if lines:
        ledger.total(tax, who, lines)


def _class_a(ledger: Ledger, who: str, paye: Decimal, year: int) -> list[Line]:
    tax = "prsi"
    found = ledger.need(
        tax,
        who,
        "IE:THRESHOLD:PRSI_A_WEEKLY_EXEMPT",
        "IE:THRESHOLD:PRSI_CREDIT_MAX_WEEKLY",
        "IE:THRESHOLD:PRSI_CREDIT_CEILING_WEEKLY",
    )
    periods = ledger.need_series(tax, who, "IE:RATE:PRSI_A_EMPLOYEE")
    if found is None or periods is None:
        return []
    exempt, credit_max, credit_ceiling = found
    weekly = paye / WEEKS
    if weekly <= exempt.value:
        return [
            ledger.line(
                tax,
                who,
                "class_a_exempt",
                f"Weekly pay of {_eur(weekly)} is within {_eur(exempt.value)}: no employee PRSI",
                ZERO,
                [exempt],
                paye,
            )
        ]
    lines = _by_rate_period(ledger, who, "Class A", paye, periods, exempt, year)
    if weekly <= credit_ceiling.value:
        # As gov.ie and welfare.ie compute it each week: the maximum, less the earnings above
        # the first cent over the exemption line times the taper (max / (ceiling - exemption),
        # one-sixth), that reduction rounded to the cent; a year is 52 such weeks.
        taper = credit_max.value / (credit_ceiling.value - exempt.value)
        reduction = cents((weekly - exempt.value - CENT) * taper)
        credit = max(credit_max.value - reduction, ZERO) * WEEKS
        lines.append(
            ledger.line(
                tax,
                who,
                "class_a_credit",
                "PRSI credit (tapered)",
                -credit,
                [credit_max, credit_ceiling, exempt],
            )
        )
    return lines


def _class_s(ledger: Ledger, who: str, income: Decimal, year: int) -> list[Line]:
    tax = "prsi"
    found = ledger.need(tax, who, "IE:THRESHOLD:PRSI_CLASS_S_INCOME")
    rates = ledger.need_series(tax, who, "IE:RATE:PRSI_CLASS_S")
    minimums = ledger.need_series(tax, who, "IE:THRESHOLD:PRSI_CLASS_S_MINIMUM")
    if found is None or rates is None or minimums is None:
        return []
    (threshold,) = found
    if income < threshold.value:
        return [
            ledger.line(
                tax,
                who,
                "class_s_exempt",
                f"Self-employed income below {_eur(threshold.value)}: no Class S PRSI",
                ZERO,
                [threshold],
                income,
            )
        ]
    charge = sum((income * _months(p, year) / MONTHS * p.fraction for p in rates), ZERO)
    minimum = sum((m.value * _months(m, year) / MONTHS for m in minimums), ZERO)
    if charge < minimum:
        return [
            ledger.line(
                tax,
                who,
                "class_s_minimum",
                "Class S minimum contribution",
                minimum,
                [threshold, *minimums],
                income,
            )
        ]
    return _by_rate_period(ledger, who, "Class S", income, rates, threshold, year)


def _by_rate_period(
    ledger: Ledger,
    who: str,
    name: str,
    income: Decimal,
    periods: list[Param],
    threshold: Param,
    year: int,
) -> list[Line]:
    """One PRSI line per rate in force during the year (the rate changes on 1 October): the
    year's income apportioned by the months each rate was in force."""
    lines = []
    key = name.lower().replace(" ", "_")
    for n, period in enumerate(periods, start=1):
        months = _months(period, year)
        base = income * months / MONTHS
        lines.append(
            ledger.line(
                "prsi",
                who,
                f"{key}_p{n}",
                f"{name} {_pct(period)} on {_eur(base)} ({months} months from {period.valid_from})",
                base * period.fraction,
                [period, threshold],
                base,
            )
        )
    return lines


# --- capital gains tax ----------------------------------------------------------------------


def _cgt(ledger: Ledger, facts: Facts) -> None:
    tax, who = "cgt", "you"
    ledger.gap(
        tax,
        who,
        "indexation, the 2011-2014 property relief and the limits on losses (to a connected "
        "person, development land) are not built: the tax may differ",
        "disposals",
    )
    first, last = ledger.params.first, ledger.params.last
    in_year = [d for d in facts.disposals if first <= d.disposed_on <= last]
    for disposal in facts.disposals:
        if disposal not in in_year:
            ledger.gap(tax, who, f"the disposal of {disposal.asset!r} on {disposal.disposed_on} "
                       f"is not in the {ledger.params.tax_year} tax year: not counted",
                       "disposals")  # fmt: skip
    if not in_year:
        return
    found = ledger.need(tax, who, "IE:RATE:CGT_STANDARD", "IE:THRESHOLD:CGT_ANNUAL_EXEMPTION")
    if found is None:
        return
    rate, exemption = found
    relieved = relieve(ledger, facts, in_year, _eur)
    if not relieved.ok:
        return
    rule = ["IE:TCA_1997:S_31"]
    # s.31: the year's losses and then unrelieved losses of earlier years come off the gains
    # before the s.601 exemption, which can neither create nor increase a loss carried forward.
    net = sum(relieved.gains, ZERO)
    brought = facts.capital_losses_brought_forward
    used = min(brought, max(net, ZERO))
    after_losses = net - used
    exempt = min(max(after_losses, ZERO), exemption.value)
    taxable = max(after_losses - exemption.value, ZERO)
    carried = brought - used + max(-net, ZERO)
    gains = ", ".join(f"{d.asset} {_eur(g)}" for d, g in zip(in_year, relieved.gains, strict=True))
    lines = list(relieved.lines)
    if brought:
        lines.append(ledger.line(tax, who, "losses_brought_forward", f"Net gains of the year "
                                 f"{_eur(net)} ({gains}): {_eur(used)} of the {_eur(brought)} "
                                 "losses brought forward used", ZERO, [exemption], used,
                                 rule))  # fmt: skip
    lines.append(ledger.line(tax, who, "exemption", f"Net gains {_eur(after_losses)}"
                             f"{'' if brought else f' ({gains})'}: {_eur(exempt)} exempt", ZERO,
                             [exemption], exempt, rule))  # fmt: skip
    if (reduced := relieved.reduced) is not None:
        lines.append(ledger.line(tax, who, "charge_relief_rate", f"{_eur(taxable)} at "
                                 f"{_pct(reduced.rate)} ({reduced.relief.name}, within the "
                                 f"{_eur(reduced.limit.value)} lifetime limit)",
                                 taxable * reduced.rate.fraction,
                                 [reduced.rate, reduced.limit, exemption], taxable,
                                 nodes=reduced.node_ids))  # fmt: skip
    else:
        lines.append(ledger.line(tax, who, "charge", f"{_eur(taxable)} at {_pct(rate)}",
                                 taxable * rate.fraction, [rate, exemption], taxable))  # fmt: skip
    if relieved.cap is not None:
        cap, params, nodes, said = relieved.cap
        charged = lines[-1].amount
        if charged > cap:
            lines.append(ledger.line(tax, who, "marginal_relief", said, cap - charged, params,
                                     charged, nodes=nodes))  # fmt: skip
    lines.append(ledger.line(tax, who, "losses_carried_forward", f"Losses to carry forward: "
                             f"{_eur(carried)}", ZERO, [exemption], carried, rule))  # fmt: skip
    ledger.total(tax, who, lines)
