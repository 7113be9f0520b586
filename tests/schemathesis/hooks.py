"""Schemathesis hooks (SCHEMATHESIS_HOOKS=hooks, see run.py).

Rules between parameters that OpenAPI cannot state, each answered with 400 by the service:
the transaction lists reject `from` after `to`; discovery needs a descriptor with a letter or
digit, a position (latitude with longitude, radius only with them) or an address (a street, a
city or a zip). Generated queries keep to them, so a 400 still means a broken request."""
import re
import uuid

import schemathesis


TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?([Zz]|([+-])(\d{2}):(\d{2})))?")


def _days(year, month, day):
    """Days from 0000-03-01 of a proleptic Gregorian date (year 0 included, as the service reads it)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year


def _instant(text, end_of_day):
    """Seconds of a day (its start or end) or an RFC 3339 time, on one scale, as the service reads them."""
    if not isinstance(text, str):
        return None
    match = TIME.fullmatch(text.strip())
    if not match:
        return None
    year, month, day = (int(part) for part in match.group(1, 2, 3))
    seconds = _days(year, month, day) * 86400
    if match.group(4) is None:
        return seconds + (86399 if end_of_day else 0)
    seconds += int(match.group(4)) * 3600 + int(match.group(5)) * 60 + int(match.group(6))
    if match.group(8):
        offset = int(match.group(9)) * 3600 + int(match.group(10)) * 60
        seconds -= offset if match.group(8) == "+" else -offset
    return seconds


def _given(query, name):
    value = query.get(name)
    return value is not None and not (isinstance(value, str) and not value.strip())


def _discoverable(query):
    if _given(query, "merchid") and not any(character.isalnum() for character in str(query["merchid"])):
        return False
    latitude, longitude = _given(query, "latitude"), _given(query, "longitude")
    if latitude != longitude or (_given(query, "radius") and not latitude):
        return False
    return _given(query, "merchid") or latitude or any(_given(query, name) for name in ("street", "city", "zip"))


@schemathesis.hook
def filter_query(context, query):
    operation = getattr(context, "operation", None)
    if operation is not None and operation.path == "/merchant/discover":
        return _discoverable(query or {})
    if not query:
        return True
    start, end = _instant(query.get("from"), False), _instant(query.get("to"), True)
    return start is None or end is None or start <= end


@schemathesis.hook
def map_headers(context, headers):
    """An `Idempotency-Key` names one request: the same key again replays the first answer (that
    is the rule), even for a webhook endpoint deleted since, which the stateful checks would read
    as a created resource gone missing. Generated requests are each a new request: each gets its
    own key."""
    if headers:
        for name in list(headers):
            if name.lower() == "idempotency-key":
                headers[name] = f"schemathesis-{uuid.uuid4().hex}"
    return headers
