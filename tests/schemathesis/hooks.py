"""Schemathesis hooks (SCHEMATHESIS_HOOKS=hooks, see run.py).

The transaction lists reject `from` after `to` with 400: a rule between two parameters that
OpenAPI cannot state. Generated queries keep to it, so a 400 still means a broken request."""
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


@schemathesis.hook
def filter_query(context, query):
    if not query:
        return True
    start, end = _instant(query.get("from"), False), _instant(query.get("to"), True)
    return start is None or end is None or start <= end
