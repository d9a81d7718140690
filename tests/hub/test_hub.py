"""torch.hub against PyTorch, offline: the same temporary ``hubconf.py`` directories, cached
GitHub checkouts and ``file://`` checkpoints go through ``torch.hub`` and ``taimatsu.hub`` under a
temporary ``TORCH_HOME``; results, files left in the cache, printed lines and errors must agree.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import zipfile
from pathlib import Path

import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

HUBCONF = '''
dependencies = ["os", "json"]
import helper  # a module of the repository itself: its folder is on sys.path

NOT_CALLABLE = 3


def add(a, b=1, *, scale=1):
    """Adds b to twice a."""
    return scale * (helper.twice(a) + b)


def _private():
    return 0


class Box:
    def __init__(self, v):
        self.v = v
'''


def _repo(folder: Path, hubconf: str = HUBCONF) -> str:
    folder.mkdir(parents=True)
    (folder / "hubconf.py").write_text(hubconf)
    (folder / "helper.py").write_text("def twice(x):\n    return 2 * x\n")
    return str(folder)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh TORCH_HOME; ``set_dir`` state of both libraries reset (restored afterwards)."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    for var in ("TORCH_HUB", "TORCH_MODEL_ZOO", "GITHUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setattr(taimatsu.hub, "_hub_dir", None)
    # each test's hubconf imports its own repository's helper module
    monkeypatch.delitem(sys.modules, "helper", raising=False)
    return tmp_path


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (the type and text are what is compared)
        return (type(e), str(e))


def both(fn):
    """``fn(hub)`` under PyTorch and taimatsu; the two outcomes must be equal."""
    expected, got = outcome(lambda: fn(torch.hub)), outcome(lambda: fn(taimatsu.hub))
    assert got == expected
    return got


def test_get_dir_env_precedence(home, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg"))
    assert both(lambda h: h.get_dir()) == ("ok", str(home / "th" / "hub"))
    monkeypatch.delenv("TORCH_HOME")
    assert both(lambda h: h.get_dir()) == ("ok", str(home / "xdg" / "torch" / "hub"))
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(home / "user"))
    assert both(lambda h: h.get_dir()) == ("ok", str(home / "user" / ".cache" / "torch" / "hub"))
    monkeypatch.setenv("TORCH_HOME", "~/tilde")
    assert both(lambda h: h.get_dir()) == ("ok", str(home / "user" / "tilde" / "hub"))
    both(lambda h: h.set_dir("~/mine"))
    assert both(lambda h: h.get_dir()) == ("ok", str(home / "user" / "mine"))
    both(lambda h: h.set_dir(home / "p"))
    assert both(lambda h: h.get_dir()) == ("ok", str(home / "p"))
    monkeypatch.setenv("TORCH_HUB", "x")
    with pytest.warns(UserWarning, match="TORCH_HUB is deprecated, please use env TORCH_HOME"):
        taimatsu.hub.get_dir()


def test_load_local(home):
    repo = _repo(home / "repo")
    assert both(lambda h: h.load(repo, "add", 3, source="local")) == ("ok", 7)
    assert both(lambda h: h.load(repo, "add", 3, b=2, scale=10, source="LOCAL")) == ("ok", 80)
    assert both(lambda h: h.load(repo, "Box", 5, source="local").v) == ("ok", 5)
    for model in ("missing", "NOT_CALLABLE", "_nope", "helper"):
        assert both(lambda h, m=model: h.load(repo, m, source="local"))[0] is RuntimeError
    assert both(lambda h: h.load(repo, 3, source="local"))[0] is ValueError
    assert both(lambda h: h.load(repo, "add", source="GitLab"))[0] is ValueError
    # hubconf's folder is on sys.path only while hub runs it
    assert repo not in sys.path


def test_missing_dependencies(home):
    conf = (
        'dependencies = ["os", "no_such_pkg_hub_a", "no_such_pkg_hub_b"]\ndef m():\n    return 1\n'
    )
    repo = _repo(home / "repo", conf)
    got = both(lambda h: h.load(repo, "m", source="local"))
    assert got == (RuntimeError, "Missing dependencies: no_such_pkg_hub_a, no_such_pkg_hub_b")
    broken = _repo(home / "broken", "import no_such_pkg_hub_c\n")
    assert both(lambda h: h.load(broken, "m", source="local"))[0] is ModuleNotFoundError


def test_github_cached_checkout(home, capsys):
    """A checkout already in the cache is used without any request (force_reload=False)."""
    hub_dir = home / "th" / "hub"
    _repo(hub_dir / "someone_proj_main")
    _repo(hub_dir / "someone_proj_feat_x")
    entries = both(lambda h: sorted(h.list("someone/proj:main", trust_repo=True)))
    assert entries == ("ok", ["Box", "add"])
    assert both(lambda h: h.help("someone/proj:feat/x", "add")) == ("ok", "Adds b to twice a.")
    assert both(lambda h: h.load("someone/proj:main", "add", 1, verbose=False)) == ("ok", 3)
    err = capsys.readouterr().err
    assert err.count(f"Using cache found in {hub_dir / 'someone_proj_main'}\n") == 2
    assert err.count(f"Using cache found in {hub_dir / 'someone_proj_feat_x'}\n") == 2
    assert (hub_dir / "trusted_list").read_text() == ""  # cached checkouts count as trusted


def test_github_trust_prompt(home, monkeypatch, capsys):
    hub_dir = home / "th" / "hub"
    _repo(hub_dir / "someone_proj_main")
    answers = iter(a for a in ["n", "", "maybe", "Yes", "y", "N"] for _ in "ab")  # torch's, ours
    monkeypatch.setattr("builtins.input", lambda prompt: (print(prompt), next(answers))[1])
    for _ in range(5):
        both(lambda h: h.list("someone/proj:main", trust_repo=False, verbose=False))
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("The repository someone_proj does not belong to the list")
    assert out.count("The repository is already trusted.") == 4
    assert both(lambda h: h.list("someone/proj:main", trust_repo=False)) == (
        Exception,
        "Untrusted repository.",
    )


def test_github_download_offline(home, monkeypatch, capsys):
    """trust_repo=True records the repository before the download, which fails offline (the
    download is replaced by urllib's offline error, so the test never touches the network)."""
    from urllib.error import URLError

    def offline(url, dst, hash_prefix=None, progress=True):
        raise URLError(f"offline: {url}")

    hub_dir = home / "th" / "hub"
    hub_dir.mkdir(parents=True)
    for h in (torch.hub, taimatsu.hub):
        monkeypatch.setattr(h, "download_url_to_file", offline)
    got = both(lambda h: h.load("someone/other:v1", "add", trust_repo=True, skip_validation=True))
    assert got == (URLError, "<urlopen error offline: https://github.com/someone/other/zipball/v1>")
    assert (hub_dir / "trusted_list").read_text() == "someone_other\n"  # written once, by torch
    (hub_dir / "trusted_list").write_text("")
    outcome(
        lambda: taimatsu.hub.load("someone/other:v1", "m", trust_repo=True, skip_validation=True)
    )
    assert (hub_dir / "trusted_list").read_text() == "someone_other\n"
    assert capsys.readouterr().out.count(f"to {hub_dir / 'v1.zip'}\n") == 3


def _checkpoint(folder: Path, stem: str) -> tuple[Path, str]:
    folder.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "step": 4}, buf)
    digest = hashlib.sha256(buf.getvalue()).hexdigest()
    path = folder / f"{stem}-{digest[:10]}.pth"
    path.write_bytes(buf.getvalue())
    return path, digest


def test_download_url_to_file(home):
    src, digest = _checkpoint(home / "src", "w")
    dst = home / "out" / "copy.bin"
    dst.parent.mkdir()
    for hash_prefix in (None, digest[:8], digest):
        both(lambda h, p=hash_prefix: h.download_url_to_file(src.as_uri(), str(dst), p, False))
        assert dst.read_bytes() == src.read_bytes()
    dst.unlink()
    got = both(lambda h: h.download_url_to_file(src.as_uri(), str(dst), "0bad", progress=False))
    assert got == (RuntimeError, f'invalid hash value (expected "0bad", got "{digest}")')
    assert list(dst.parent.iterdir()) == []  # no partial file, nothing replaced
    assert both(lambda h: h.download_url_to_file((home / "none").as_uri(), str(dst)))[0] is (
        __import__("urllib.error").error.URLError
    )


def _as_lists(sd):
    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in sd.items()}


def test_load_state_dict_from_url(home, capsys):
    src, _ = _checkpoint(home / "src", "weights")
    url = src.as_uri()
    for h in (torch.hub, taimatsu.hub):
        h.set_dir(str(home / f"hub_{h.__name__}"))
        sd = h.load_state_dict_from_url(url, check_hash=True, progress=False)
        assert _as_lists(sd) == {"w": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], "step": 4}
        cached = home / f"hub_{h.__name__}" / "checkpoints" / src.name
        assert cached.read_bytes() == src.read_bytes()
        assert capsys.readouterr().out == f'Downloading: "{url}" to {cached}\n'
        src.rename(src.with_suffix(".moved"))  # the second call reads the cache only
        again = h.load_state_dict_from_url(url, progress=False, map_location="cpu")
        assert _as_lists(again) == _as_lists(sd) and capsys.readouterr().out == ""
        src.with_suffix(".moved").rename(src)
    assert isinstance(sd["w"], taimatsu.Tensor)


def test_load_state_dict_from_url_names_and_hash(home):
    src, _ = _checkpoint(home / "src", "weights")
    bad = src.with_name("weights-0badcafe.pth")
    bad.write_bytes(src.read_bytes())
    got = both(
        lambda h: h.load_state_dict_from_url(
            bad.as_uri(), str(home / h.__name__), None, False, True
        )
    )
    assert got[0] is RuntimeError and got[1].startswith('invalid hash value (expected "0badcafe"')
    # file_name renames the cached file; without check_hash the name's hash is not checked
    for h in (torch.hub, taimatsu.hub):
        model_dir = home / f"named_{h.__name__}"
        sd = h.load_state_dict_from_url(
            bad.as_uri(), str(model_dir), progress=False, file_name="m.pt"
        )
        assert sd["step"] == 4 and sorted(os.listdir(model_dir)) == ["m.pt"]


def test_load_state_dict_from_legacy_zip(home):
    """A zip holding one checkpoint file is extracted next to it, with PyTorch's FutureWarning."""
    src, _ = _checkpoint(home / "src", "inner")
    archive = home / "src" / "legacy.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(src, "inner.pth")
    for h in (torch.hub, taimatsu.hub):
        model_dir = home / f"zip_{h.__name__}"
        with pytest.warns(FutureWarning, match="Falling back to the old format < 1.6"):
            sd = h.load_state_dict_from_url(archive.as_uri(), str(model_dir), progress=False)
        assert sd["step"] == 4 and sorted(os.listdir(model_dir)) == ["inner.pth", "legacy.zip"]


def test_public_names():
    assert sorted(taimatsu.hub.__all__) == sorted(torch.hub.__all__)
    assert taimatsu.hub.HASH_REGEX.pattern == torch.hub.HASH_REGEX.pattern


def test_github_without_ref_offline(home, monkeypatch):
    """No ref and no network: a cached ``main`` or ``master`` checkout, else PyTorch's error (the
    probe of github.com fails with urllib's URLError, raised here without touching the network)."""
    import urllib.request
    from urllib.error import HTTPError, URLError

    def unreachable(url, *args, **kwargs):
        raise URLError("offline")

    monkeypatch.setattr(urllib.request, "urlopen", unreachable)  # taimatsu's lookup
    monkeypatch.setattr(torch.hub, "urlopen", unreachable)  # torch.hub bound it at import
    hub_dir = home / "th" / "hub"
    hub_dir.mkdir(parents=True)
    got = both(lambda h: h.list("someone/proj", verbose=False))
    assert got == (
        RuntimeError,
        f"It looks like there is no internet connection and the repo could not be found in the cache ({hub_dir})",
    )
    _repo(hub_dir / "someone_proj_master")
    assert both(lambda h: h.load("someone/proj", "add", 2, verbose=False)) == ("ok", 5)
    _repo(hub_dir / "someone_proj_main", HUBCONF.replace("twice(a) + b", "twice(a) - b"))
    assert both(lambda h: h.load("someone/proj", "add", 2, verbose=False)) == ("ok", 3)

    def no_main(url, *args, **kwargs):  # github.com answers 404 for tree/main: master is taken
        assert url == "https://github.com/someone/proj/tree/main/"
        raise HTTPError(url, 404, "Not Found", {}, None)

    monkeypatch.setattr(urllib.request, "urlopen", no_main)
    monkeypatch.setattr(torch.hub, "urlopen", no_main)
    assert both(lambda h: h.load("someone/proj", "add", 2, verbose=False)) == ("ok", 5)


def test_github_zipball_extracted(home, monkeypatch, capsys):
    """force_reload: the zipball (served from a local zip) is unpacked and its top folder renamed
    to ``owner_repo_ref``; the archive is removed."""
    src = Path(_repo(home / "zipsrc" / "someone-proj-abc123"))
    archive = home / "zipsrc" / "ball.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("someone-proj-abc123/", "")
        for f in sorted(src.iterdir()):
            zf.write(f, f"someone-proj-abc123/{f.name}")

    def serve(url, dst, hash_prefix=None, progress=True):
        assert url == "https://github.com/someone/proj/zipball/dev/x"
        Path(dst).write_bytes(archive.read_bytes())

    hub_dir = home / "th" / "hub"
    for h in (torch.hub, taimatsu.hub):
        monkeypatch.setattr(h, "download_url_to_file", serve)
    got = both(
        lambda h: h.load(
            "someone/proj:dev/x", "add", 4, trust_repo=True, force_reload=True, skip_validation=True
        )
    )
    assert got == ("ok", 9)
    assert sorted(os.listdir(hub_dir)) == ["someone_proj_dev_x", "trusted_list"]
    assert sorted(set(os.listdir(hub_dir / "someone_proj_dev_x")) - {"__pycache__"}) == [
        "helper.py",
        "hubconf.py",
    ]
    assert (
        capsys.readouterr().out.count(
            f'"https://github.com/someone/proj/zipball/dev/x" to {hub_dir}/dev_x.zip'
        )
        == 2
    )


def test_github_fork_validation(home, monkeypatch):
    """skip_validation=False asks GitHub's API (served here by a fake urlopen) whether the ref is
    a branch, a tag or a commit prefix of the repository."""
    import json
    import urllib.request
    from urllib.error import HTTPError

    pages = {
        "branches?per_page=100&page=1": [{"name": "main", "commit": {"sha": "c0ffee11"}}],
        "tags?per_page=100&page=1": [{"name": "v1.0", "commit": {"sha": "beef2222"}}],
    }

    class Reply(io.BytesIO):
        headers = type("H", (), {"get_content_charset": staticmethod(lambda default: default)})

    def api(request, *args, **kwargs):
        url = request.full_url
        assert url.startswith("https://api.github.com/repos/someone/proj/")
        assert request.get_header("Accept") == "application/vnd.github.v3+json"
        return Reply(json.dumps(pages.get(url.rsplit("/", 1)[1], [])).encode())

    def no_download(url, dst, hash_prefix=None, progress=True):
        raise OSError(f"would download {url}")

    monkeypatch.setattr(urllib.request, "urlopen", api)
    monkeypatch.setattr(torch.hub, "urlopen", api)
    for h in (torch.hub, taimatsu.hub):
        monkeypatch.setattr(h, "download_url_to_file", no_download)
    for ref in ("main", "v1.0", "c0ff", "beef2222"):
        got = both(lambda h, r=ref: h.list(f"someone/proj:{r}", trust_repo=True))
        assert got == (OSError, f"would download https://github.com/someone/proj/zipball/{ref}")
    got = both(lambda h: h.list("someone/proj:fork-branch", trust_repo=True))
    message = (
        "Cannot find fork-branch in https://github.com/someone/proj. "
        "If it's a commit from a forked repo, please call hub.load() with forked repo directly."
    )
    assert got == (ValueError, message)

    def refused(request, *args, **kwargs):
        raise HTTPError(request.full_url, 403, "rate limited", {}, None)

    monkeypatch.setattr(urllib.request, "urlopen", refused)
    monkeypatch.setattr(torch.hub, "urlopen", refused)
    # the retry drops a GITHUB_TOKEN that is not there: PyTorch's KeyError
    assert both(lambda h: h.list("someone/proj:main", trust_repo=True)) == (
        KeyError,
        "'Authorization'",
    )
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    assert both(lambda h: h.list("someone/proj:main", trust_repo=True))[0] is HTTPError
