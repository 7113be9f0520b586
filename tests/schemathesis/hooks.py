"""Schemathesis hooks (SCHEMATHESIS_HOOKS=hooks, see run.py).

Rules between parameters that OpenAPI cannot state, each answered with 400 by the service:
the transaction lists reject `from` after `to`; discovery needs a descriptor with a letter or
digit, a position (latitude with longitude, radius only with them) or an address (a street, a
city or a zip). Generated queries keep to them, so a 400 still means a broken request."""
from datetime import datetime, time, timezone

import schemathesis


def _instant(text, end_of_day):
    """Unix seconds of a day (its start or end) or an RFC 3339 time, as the service reads them."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    try:
        if len(text) == 10:
            day = datetime.strptime(text, "%Y-%m-%d").date()
            return datetime.combine(day, time(23, 59, 59) if end_of_day else time(0, 0, 0), timezone.utc).timestamp()
        return datetime.fromisoformat(text.replace("z", "Z").replace("t", "T").replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


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
