"""The one way every check gives feedback."""

OK = "\u2714 "
NO = "\u2718 "


def report(ok: bool, message: str) -> bool:
    """Print ``message`` with a tick or a cross and return ``ok``."""
    print((OK if ok else NO) + message)
    return bool(ok)
