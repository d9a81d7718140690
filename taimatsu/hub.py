"""``torch.hub``: load entrypoints from a repository's ``hubconf.py`` and checkpoints from URLs.

What matches PyTorch 2.x and was run (tests/hub, against torch.hub on the same files):

- ``get_dir``/``set_dir``: ``$TORCH_HOME/hub``, ``$TORCH_HOME`` defaulting to
  ``$XDG_CACHE_HOME/torch`` and that to ``~/.cache/torch``; the deprecated ``TORCH_HUB`` warns.
- ``load``/``list``/``help`` on a local directory (``source='local'`` for ``load``; a cached
  GitHub checkout for ``list``/``help``): ``hubconf.py`` is imported with its directory on
  ``sys.path``, its ``dependencies`` checked, entrypoints are the callables not starting with
  ``_``; PyTorch's errors for an unknown source, a non-string model, a missing or non-callable one.
- ``download_url_to_file`` and ``load_state_dict_from_url`` with urllib (``file://`` URLs in the
  tests): a ``.partial`` temporary file renamed when complete, the SHA-256 prefix check, the cache
  ``<hub_dir>/checkpoints/<file name>``, loading through ``taimatsu.load``.
- ``source='github'``: ``owner/repo[:ref]`` parsing, the cache folder ``owner_repo_ref`` (``/`` in
  the ref becomes ``_``), the ``trusted_list`` file and the trust prompt, reuse of a cached checkout
  without any request when ``force_reload`` is False. With the network simulated (a fake
  ``urlopen``, a zipball served from a local zip): the offline fallback to a cached ``main`` or
  ``master`` checkout when no ref is given, the GitHub API check that a ref belongs to the
  repository (``skip_validation=False``), unpacking the zipball into ``owner_repo_ref``.

NOT run: any request to the real github.com or api.github.com (the tests never touch the network).
Offline, those requests raise urllib's ``URLError`` as in PyTorch.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile
from pathlib import Path
from typing import Any

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

# the hash in "resnet18-5c106cde.pth"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_CHUNK = 128 * 1024
_hub_dir: str | None = None


# ----------------------------------------------------------------------------- cache directory


def _get_torch_home() -> str:
    xdg = os.getenv("XDG_CACHE_HOME", "~/.cache")
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(xdg, "torch")))


def get_dir() -> str:
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub``."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Set the hub cache directory (``~`` expanded)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ----------------------------------------------------------------------------- hubconf.py


def _import_hubconf(repo_dir: str):
    """Execute ``<repo_dir>/hubconf.py`` as a fresh module (callers put the directory on
    ``sys.path`` so that hubconf can import the repository's own modules)."""
    path = os.path.join(repo_dir, "hubconf.py")
    spec = importlib.util.spec_from_file_location("hubconf.py", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _on_sys_path(path: str):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _entrypoint(module, model):
    if not isinstance(model, str):
        raise ValueError(  # noqa: TRY004  (PyTorch's type)
            "Invalid input: model should be a string of function name"
        )
    # a dependency imported at hubconf's top level already failed with Python's ImportError
    deps = getattr(module, "dependencies", None) if "dependencies" in dir(module) else None
    if deps is not None:
        missing = [name for name in deps if importlib.util.find_spec(name) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(module, model) if model in dir(module) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


# ----------------------------------------------------------------------------- GitHub checkouts


def _parse_repo_info(github: str) -> tuple[str, str, str]:
    """``owner/repo[:ref]``; without a ref, ``main`` if GitHub has it, else ``master``."""
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    owner, name = repo_info.split("/")
    if ref is None:
        ref = _default_branch(owner, name)
    return owner, name, ref


def _default_branch(owner: str, name: str) -> str:
    from urllib.error import HTTPError, URLError
    from urllib.request import urlopen

    try:
        with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
            return "main"
    except HTTPError as e:
        if e.code == 404:
            return "master"
        raise
    except URLError as e:
        # offline: a cached checkout of either branch is the last resort
        for ref in ("main", "master"):
            if os.path.exists(f"{get_dir()}/{owner}_{name}_{ref}"):
                return ref
        raise RuntimeError(
            "It looks like there is no internet connection and the "
            f"repo could not be found in the cache ({get_dir()})"
        ) from e


def _check_repo_is_trusted(owner: str, name: str, folder: str, trust_repo) -> None:
    hub_dir = get_dir()
    trusted_file = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(trusted_file):
        Path(trusted_file).touch()
    with open(trusted_file) as f:
        trusted = tuple(line.strip() for line in f)
    owner_name = f"{owner}_{name}"
    # a repository downloaded before the trust mechanism existed counts as trusted
    is_trusted = (
        owner_name in trusted
        or folder in next(os.walk(hub_dir))[1]
        or owner in _TRUSTED_REPO_OWNERS
    )
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories "
            "and as such cannot be downloaded. Do you trust this repository and wish to add it "
            "to the trusted list of repositories (y/N)?"
        )
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002  (PyTorch's type)
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(trusted_file, "a") as f:
            f.write(owner_name + "\n")


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    # branch names may hold '/', which cannot be in a folder name
    safe_ref = ref.replace("/", "_")
    folder = f"{owner}_{name}_{safe_ref}"
    repo_dir = os.path.join(hub_dir, folder)
    _check_repo_is_trusted(owner, name, folder, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _validate_not_a_forked_repo(owner, name, ref)
    archive = os.path.join(hub_dir, safe_ref + ".zip")
    _remove_if_exists(archive)
    _download_zipball(owner, name, ref, archive)
    with zipfile.ZipFile(archive) as zf:
        top = os.path.join(hub_dir, zf.infolist()[0].filename)
        _remove_if_exists(top)
        _safe_extract_zip(zf, hub_dir)
    _remove_if_exists(archive)
    _remove_if_exists(repo_dir)
    shutil.move(top, repo_dir)
    return repo_dir


def _download_zipball(owner: str, name: str, ref: str, archive: str) -> None:
    from urllib.error import HTTPError

    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {archive}\n')
    try:
        download_url_to_file(url, archive, progress=False)
    except HTTPError as err:
        if err.code != 300:
            raise
        # 300: the ref is both a tag and a branch; like git, take the branch
        warnings.warn(
            f"The ref {ref} is ambiguous. Perhaps it is both a tag and a branch in the repo? "
            "Torchhub will now assume that it's a branch. You can disambiguate tags and branches "
            "by explicitly passing refs/heads/branch_name or refs/tags/tag_name as the ref. "
            "That might require using skip_validation=True.",
            stacklevel=2,
        )
        url = f"https://github.com/{owner}/{name}/zipball/refs/heads/{ref}"
        download_url_to_file(url, archive, progress=False)


def _validate_not_a_forked_repo(owner: str, name: str, ref: str) -> None:
    """The ref must be a branch, tag or commit of this repository (GitHub's API), not a fork's."""
    from urllib.error import HTTPError
    from urllib.request import Request, urlopen

    headers = {"Accept": "application/vnd.github.v3+json"}
    if os.environ.get("GITHUB_TOKEN") is not None:
        headers["Authorization"] = f"token {os.environ['GITHUB_TOKEN']}"

    def page(url):
        with urlopen(Request(url, headers=headers)) as r:
            return json.loads(r.read().decode(r.headers.get_content_charset("utf-8")))

    for kind in ("branches", "tags"):
        number = 0
        while True:
            number += 1
            url = f"https://api.github.com/repos/{owner}/{name}/{kind}?per_page=100&page={number}"
            try:
                items = page(url)
            except HTTPError:
                # retry without the token, which may lack the permission; without a token
                # PyTorch's retry fails with KeyError('Authorization'), and so does this one
                del headers["Authorization"]
                items = page(url)
            if not items:
                break
            if any(it["name"] == ref or it["commit"]["sha"].startswith(ref) for it in items):
                return
    raise ValueError(
        f"Cannot find {ref} in https://github.com/{owner}/{name}. "
        "If it's a commit from a forked repo, please call hub.load() with forked repo directly."
    )


def _safe_extract_zip(zf: zipfile.ZipFile, target: str) -> None:
    """Extract refusing absolute paths and ``..`` (zip slip)."""
    root = Path(target).resolve()
    for member in zf.infolist():
        path = os.path.normpath(member.filename)
        if path.startswith(("/", "\\")) or (
            len(path) >= 2 and path[1] == ":" and path[0].isalpha()
        ):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(r"[/\\]", path):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (root / path).resolve().is_relative_to(root):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zf.extract(member, root)


def _remove_if_exists(path: str) -> None:
    if os.path.isfile(path):
        os.remove(path)
    elif os.path.exists(path):
        shutil.rmtree(path)


# ----------------------------------------------------------------------------- public entrypoints


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """Names of the callable entrypoints of ``github``'s ``hubconf.py`` (not starting with ``_``)."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, verbose, skip_validation)
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return [n for n in dir(module) if callable(getattr(module, n)) and not n.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of entrypoint ``model`` of ``github``'s ``hubconf.py``."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, True, skip_validation)
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return _entrypoint(module, model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call entrypoint ``model`` of a GitHub repository (``owner/repo[:ref]``) or, with
    ``source='local'``, of a local directory's ``hubconf.py``, with ``*args, **kwargs``."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(
            repo_or_dir, force_reload, trust_repo, verbose, skip_validation
        )
    # the entrypoint may import the repository's own modules while it runs, too
    with _on_sys_path(repo_or_dir):
        return _entrypoint(_import_hubconf(repo_or_dir), model)(*args, **kwargs)


# ----------------------------------------------------------------------------- downloads


class _Progress:
    """Percent (or bytes, without a Content-Length) on stderr, as PyTorch does without tqdm."""

    def __init__(self, total, disable):
        self.total, self.disable, self.n = total, disable, 0

    def update(self, n):
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


def _progress_bar(total, disable):
    try:  # tqdm's bar where it is installed, as PyTorch
        from tqdm import tqdm
    except ImportError:
        return _Progress(total, disable)
    return tqdm(total=total, disable=disable, unit="B", unit_scale=True, unit_divisor=1024)


def download_url_to_file(
    url: str, dst: str, hash_prefix: str | None = None, progress: bool = True
) -> None:
    """Download ``url`` to ``dst`` through ``dst.<uuid>.partial`` (a failed download never
    replaces a good file); with ``hash_prefix``, the SHA-256 hex digest must start with it."""
    from urllib.request import Request, urlopen

    dst = os.path.expanduser(dst)
    tmp = f"{dst}.{uuid.uuid4().hex}.partial"
    f = open(tmp, "w+b")  # noqa: SIM115  (closed in finally; renamed only when complete)
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            length = u.info().get_all("Content-Length")
            total = int(length[0]) if length else None
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            with _progress_bar(total, not progress) as bar:
                while buffer := u.read(_CHUNK):
                    f.write(buffer)
                    if sha256 is not None:
                        sha256.update(buffer)
                    bar.update(len(buffer))
            f.close()
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[: len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(
                        f'invalid hash value (expected "{hash_prefix}", got "{digest}")'
                    )
        shutil.move(tmp, dst)
    finally:
        f.close()
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location=None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> dict[str, Any]:
    """``taimatsu.load`` of the checkpoint at ``url``, downloaded once to
    ``model_dir`` (default ``<hub_dir>/checkpoints``) under ``file_name`` or the URL's file name.
    ``check_hash``: the name's ``-<hex>.`` part must prefix the file's SHA-256."""
    from urllib.parse import urlparse

    from .serialization import load as _load

    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn(
            "TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2
        )
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress)
    if _is_legacy_zip(cached_file):
        cached_file = _extract_legacy_zip(cached_file, model_dir)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)


def _is_legacy_zip(filename: str) -> bool:
    """A zip of one file (a pre-1.6 checkpoint zipped by hand); torch.save's own zip has many."""
    if not zipfile.is_zipfile(filename):
        return False
    with zipfile.ZipFile(filename) as zf:
        members = zf.infolist()
    return len(members) == 1 and not members[0].is_dir()


def _extract_legacy_zip(filename: str, model_dir: str) -> str:
    warnings.warn(
        "Falling back to the old format < 1.6. This support will be deprecated in favor of "
        "default zipfile format introduced in 1.6. Please redo torch.save() to save it in the "
        "new zipfile format.",
        FutureWarning,
        stacklevel=3,
    )
    with zipfile.ZipFile(filename) as zf:
        _safe_extract_zip(zf, model_dir)
        return os.path.join(model_dir, zf.infolist()[0].filename)
