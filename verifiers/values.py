"""Typed reading of values: money, numbers, dates and times, durations on the world clock, text.

Verifiers compare meanings, not spellings: "$0.00" equals "0", "2026-03-05" equals
"March 5, 2026", and 49.99 is never found inside "149.99".
"""

import re
import unicodedata
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation

CURRENCY_SYMBOLS = {
    "US$": "USD",
    "CA$": "CAD",
    "C$": "CAD",
    "A$": "AUD",
    "AU$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "$": "$",
    "€": "EUR",
    "£": "GBP",
    "¥": "¥",
    "₹": "INR",
    "R$": "BRL",
    "CHF": "CHF",
}
# A bare "$" or "¥" names no one currency: a Canadian desk writes "$140.62" for CAD.
AMBIGUOUS_SYMBOLS = {
    "$": {"USD", "CAD", "AUD", "NZD", "HKD", "SGD", "MXN"},
    "¥": {"JPY", "CNY"},
}
CURRENCY_CODES = {
    "USD",
    "EUR",
    "GBP",
    "JPY",
    "CAD",
    "AUD",
    "NZD",
    "CHF",
    "SEK",
    "NOK",
    "DKK",
    "PLN",
    "CZK",
    "HUF",
    "INR",
    "BRL",
    "MXN",
    "SGD",
    "HKD",
    "CNY",
    "ZAR",
    "KRW",
    "TRY",
    "ILS",
    "AED",
}

# A number as people write it: "1,234.50", "1.234,50", "49.99", "0", "-3". It may not
# start inside a word or another number, nor stop before more digits, so 49.99 is
# never read out of "149.99" or "49.995".
_NUMBER = r"[-−]?\d+(?:[.,\u00a0\u202f']\d{3})*(?:[.,]\d+)?"
_NUMBER_TOKEN = re.compile(rf"(?<![\w.,]){_NUMBER}(?![\w]|[.,]\d)")
_SYMBOLS = "|".join(re.escape(s) for s in sorted(CURRENCY_SYMBOLS, key=len, reverse=True))
_CODES = "|".join(sorted(CURRENCY_CODES))
_MONEY_TOKEN = re.compile(
    rf"(?:(?P<pre_code>\b(?:{_CODES}))\s?|(?P<pre_sym>{_SYMBOLS})\s?)?"
    rf"(?<![\w.,])(?P<num>{_NUMBER})(?![\w]|[.,]\d)"
    rf"(?:\s?(?P<post_code>(?:{_CODES})\b)|\s?(?P<post_sym>[€£¥₹$]))?"
)


class BadValue(ValueError):
    """A value that cannot be read as the type asked for."""


def parse_number_text(text: str) -> Decimal:
    """One written number ("1,234.50", "1.234,50", "49,99", "0") as a Decimal."""
    s = text.strip().replace("−", "-").replace("\u00a0", "").replace("\u202f", "").replace("'", "")
    sign = ""
    if s[:1] in ("+", "-"):  # not `in "+-"`: the empty string is in every string
        sign, s = ("-" if s[0] == "-" else ""), s[1:]
    if not re.fullmatch(r"\d+(?:[.,]\d+)*", s):
        raise BadValue(f"not a number: {text!r}")
    commas, dots = s.count(","), s.count(".")
    if commas and dots:
        # whichever separator comes last is the decimal one
        decimal_sep = "," if s.rfind(",") > s.rfind(".") else "."
        thousands = "." if decimal_sep == "," else ","
        s = s.replace(thousands, "").replace(decimal_sep, ".")
    elif commas:
        groups = s.split(",")
        if commas > 1 or (len(groups[1]) == 3 and len(groups[0]) <= 3 and groups[0] != "0"):
            s = s.replace(",", "")  # 1,234 or 1,234,567: thousands
        else:
            s = s.replace(",", ".")  # 49,99: a decimal comma
    elif dots > 1:
        s = s.replace(".", "")  # 1.234.567: thousands
    try:
        return Decimal(sign + s)
    except InvalidOperation:
        raise BadValue(f"not a number: {text!r}")


def to_decimal(value) -> Decimal:
    """A number from a spec or a snapshot: int, float, Decimal or text like "$49.99"."""
    if isinstance(value, bool):
        raise BadValue(f"not a number: {value!r}")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        money = parse_money_text(value)
        if money is not None:
            return money[0]
        return parse_number_text(value)
    raise BadValue(f"not a number: {value!r}")


def parse_money_text(text: str):
    """(amount, currency or None) when `text` is exactly one amount of money, else None."""
    m = _MONEY_TOKEN.fullmatch(text.strip())
    if not m:
        return None
    return parse_number_text(m.group("num")), _currency_of(m)


def _currency_of(m) -> str | None:
    code = m.group("pre_code") or m.group("post_code")
    if code:
        return code
    sym = m.group("pre_sym") or m.group("post_sym")
    return CURRENCY_SYMBOLS.get(sym) if sym else None


def currency_matches(written: str | None, code: str) -> bool:
    """Whether a currency as written ("USD", "$", or None for none) can be `code`; None matches any."""
    if written is None:
        return True
    return code.upper() in AMBIGUOUS_SYMBOLS.get(written, {written})


def numbers_in(text: str) -> list[Decimal]:
    """Every number written in a message, whole tokens only."""
    found = []
    for m in _NUMBER_TOKEN.finditer(text):
        try:
            found.append(parse_number_text(m.group(0)))
        except BadValue:
            continue
    return found


def money_in(text: str) -> list[tuple[Decimal, str | None]]:
    """Every amount of money written in a message, with its currency when one is written.

    The currency is an ISO code, or the symbol itself when it names several ("$", "¥").
    """
    found = []
    for m in _MONEY_TOKEN.finditer(text):
        try:
            found.append((parse_number_text(m.group("num")), _currency_of(m)))
        except BadValue:
            continue
    return found


# --- dates and times ---------------------------------------------------------------------

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_PATTERNS = [
    ("iso", re.compile(r"(?<!\d)(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})(?!\d)")),
    ("ymd", re.compile(r"(?<!\d)(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})(?!\d)")),
    ("slash", re.compile(r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4}|\d{2})(?![\d/])")),
    ("dotted", re.compile(r"(?<![\d.])(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4})(?![\d.])")),
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I)),
]


def _make_date(year, month, day):
    try:
        return date(int(year), int(month), int(day))
    except (TypeError, ValueError):
        return None


def dates_in(text: str, *, day_first: bool = False) -> list[date]:
    """Every calendar date written in a message, in any of the common formats.

    "03/05/2026" is read month first (US) unless `day_first`.
    """
    found = []
    for kind, pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            g = m.groupdict()
            if kind == "slash":
                year = int(g["year"])
                year = year + 2000 if year < 100 else year
                month, day = (g["b"], g["a"]) if day_first else (g["a"], g["b"])
                d = _make_date(year, month, day)
            elif kind in ("mdy", "dmy"):
                d = _make_date(g["year"], MONTHS[g["month"].lower()], g["day"])
            else:
                d = _make_date(g["year"], g["month"], g["day"])
            if d is not None and (m.start(), d) not in found:
                found.append((m.start(), d))
    return [d for _, d in sorted(found, key=lambda item: item[0])]


# Public ids (#8003, ORD-4419, INV-2026-0012, ch_3Nx) and clock times (10:30) hold digits
# that are not amounts or counts; dates are read as dates, not as three numbers.
_ID_TOKEN = re.compile(r"#\w[\w-]*|\b[A-Za-z][A-Za-z0-9]*[-_][A-Za-z0-9][\w-]*")
_TIME_TOKEN = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]\.?m\.?)?(?![\d:])", re.I)
_DATE_TIME_T = re.compile(r"(?<=\d)T(?=\d)")


def answer_text(text: str, *, keep_money: bool = True) -> str:
    """A message with what is not a candidate amount or count blanked out: public ids, dates, times,
    and (unless `keep_money`) amounts written with a currency, which are not counts."""
    text = _DATE_TIME_T.sub(" ", text)
    for _kind, pattern in _DATE_PATTERNS:
        text = pattern.sub(" ", text)
    text = _TIME_TOKEN.sub(" ", _ID_TOKEN.sub(" ", text))
    if not keep_money:
        text = _MONEY_TOKEN.sub(lambda m: " " if _currency_of(m) else m.group(0), text)
    return text


def parse_datetime(value: str) -> datetime:
    """An ISO 8601 date-time ("2026-03-05T10:00:00Z"); naive values are taken as UTC."""
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        raise BadValue(f"not an ISO date-time: {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def is_date_only(value: str) -> bool:
    return isinstance(value, str) and re.fullmatch(r"\s*\d{4}-\d{2}-\d{2}\s*", value) is not None


def parse_date(value: str) -> date:
    """One written date in any of the formats `dates_in` reads, or an ISO date-time."""
    if isinstance(value, str):
        try:
            return parse_datetime(value).date() if not is_date_only(value) else date.fromisoformat(value.strip())
        except ValueError:
            pass
        found = dates_in(value)
        if len(found) == 1:
            return found[0]
    raise BadValue(f"not a date: {value!r}")


_DURATION = re.compile(r"([+-])?\s*((?:\d+\s*[wdhms]\s*)+)")
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


def parse_duration(text: str) -> timedelta:
    """ "+3d", "-2h30m", "1w", "90s" as a timedelta (sign optional)."""
    m = _DURATION.fullmatch(text.strip()) if isinstance(text, str) else None
    if not m:
        raise BadValue(f"not a duration like '+3d' or '-2h30m': {text!r}")
    delta = timedelta()
    for amount, unit in re.findall(r"(\d+)\s*([wdhms])", m.group(2)):
        delta += timedelta(**{_UNITS[unit]: int(amount)})
    return -delta if m.group(1) == "-" else delta


def clock_relative(offset: str, clock: datetime) -> datetime:
    return clock + parse_duration(offset)


# --- computed dates on the world clock -------------------------------------------------------
#
# "This quarter", "5 business days ago", "the first Monday": a rule applied to a day (the world
# clock's, in UTC), so the same world gives the same date in every run. Weeks start on Monday
# (ISO 8601); business days are Monday to Friday (no holidays: worlds have no calendar of them).

CALENDAR_RULES = (
    "start_of_week",
    "start_of_month",
    "start_of_quarter",
    "start_of_year",
    "business_days",
    "nth_weekday",
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RULE_KEYS = {
    "start_of_week": {"n"},
    "start_of_month": {"n"},
    "start_of_quarter": {"n"},
    "start_of_year": {"n"},
    "business_days": {"n"},
    "nth_weekday": {"n", "weekday", "months"},
}
_RULE_NEEDS = {"business_days": {"n"}, "nth_weekday": {"n", "weekday"}}


def check_calendar(rule: str, args: dict) -> None:
    """Refuse (BadValue) a calendar rule that names no rule, lacks or misspells an argument, or holds a wrong one."""
    if rule not in CALENDAR_RULES:
        raise BadValue(f"unknown date rule {rule!r} (rules: {', '.join(CALENDAR_RULES)})")
    extra = sorted(set(args) - _RULE_KEYS[rule])
    if extra:
        raise BadValue(f"{rule} takes {', '.join(sorted(_RULE_KEYS[rule]))}, not {extra[0]!r}")
    missing = sorted(_RULE_NEEDS.get(rule, set()) - set(args))
    if missing:
        raise BadValue(f"{rule} needs {missing[0]!r}")
    for key in ("n", "months"):
        if key in args and (isinstance(args[key], bool) or not isinstance(args[key], int)):
            raise BadValue(f"{key} of {rule} must be an integer, not {args[key]!r}")
    if rule == "business_days" and args["n"] == 0:
        raise BadValue("business_days needs n other than 0: how many business days after (n > 0) or before (n < 0)")
    if rule == "nth_weekday":
        if args["weekday"] not in WEEKDAYS:
            raise BadValue(f"weekday must be one of {', '.join(WEEKDAYS)}, not {args['weekday']!r}")
        if args["n"] == 0 or abs(args["n"]) > 5:
            raise BadValue(f"n of nth_weekday is 1 to 5 (or -1 to -5 from the month's end), not {args['n']}")


def _month_start(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def calendar_date(rule: str, args: dict, day: date) -> date:
    """The date a checked rule gives from `day` (the world clock's day).

    `start_of_*` with `n` is that many periods later (n=-1: the previous quarter's first day);
    `business_days` n business days after (n > 0) or before (n < 0) `day`, Monday to Friday;
    `nth_weekday` the n-th `weekday` of the month (`months` later), n < 0 counting from its end;
    a month without it (a fifth Monday) is a BadValue.
    """
    n = args.get("n", 0)
    if rule == "start_of_week":
        return day - timedelta(days=day.weekday()) + timedelta(weeks=n)
    if rule == "start_of_month":
        return _month_start(day, n)
    if rule == "start_of_quarter":
        return _month_start(day, -((day.month - 1) % 3) + 3 * n)
    if rule == "start_of_year":
        return date(day.year + n, 1, 1)
    if rule == "business_days":
        step, left = (1 if n > 0 else -1), abs(n)
        while left:
            day += timedelta(days=step)
            left -= day.weekday() < 5
        return day
    first = _month_start(day, args.get("months", 0))
    wanted = WEEKDAYS.index(args["weekday"])
    if n > 0:
        found = first + timedelta(days=(wanted - first.weekday()) % 7 + 7 * (n - 1))
    else:
        last = _month_start(first, 1) - timedelta(days=1)
        found = last - timedelta(days=(last.weekday() - wanted) % 7 + 7 * (-n - 1))
    if found.month != first.month:
        raise BadValue(f"{first:%B %Y} has no {args['weekday']} number {n}")
    return found


def is_computed_date(value) -> bool:
    """A computed date of a verifier spec: {"date": "start_of_quarter"}, {"date": "business_days", "n": -5}."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("date"), str)
        and set(value) <= {"date", "n", "weekday", "months"}
    )


def computed_date(value: dict, clock: datetime) -> date:
    return calendar_date(value["date"], {k: v for k, v in value.items() if k != "date"}, clock.astimezone(UTC).date())


# --- text -------------------------------------------------------------------------------


def normalize_text(text: str, *, case_insensitive: bool = False, normalize_whitespace: bool = False) -> str:
    text = unicodedata.normalize("NFC", text)
    if normalize_whitespace:
        text = " ".join(text.split())
    if case_insensitive:
        text = text.casefold()
    return text


def normalize_answer(text: str) -> str:
    """A message as compared with accepted answers: NFKC, casefolded, spaces collapsed, no end punctuation."""
    text = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return text.strip(" .!?;:,\"'")
