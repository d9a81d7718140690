"""``raised(fn)``: what calling ``fn`` raised, as (type, message), or None; the tests compare it
between taimatsu and PyTorch."""


def raised(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001 - the type itself is compared
        return type(e), str(e)
    return None
