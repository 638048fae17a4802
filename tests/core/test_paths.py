"""The lifecycle safety contract (pmem_tui.core.paths): refusals, a fixed corpus of bad paths, properties."""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pmem_tui.core.errors import UnsafePath
from pmem_tui.core.paths import (
    Area,
    check_existing_inside,
    check_memory_path,
    location_path,
    normalize_user_path,
    protected_reason,
)
from tests.campaign import examples

# One xdist worker runs this whole module: its module fixtures and property tree are built once.
pytestmark = pytest.mark.xdist_group("paths")

# ------------------------------------------------------------------------------------------ fixtures


def _build_root(base: Path) -> dict[str, Path]:
    """A memory root with real folders and links in every awkward place, plus a place outside it."""
    outside = base / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.md").write_text("outside\n")

    root = base / "memory"
    for folder in ("_core", "projects/sub/deep", "notes", "_archive/projects", "_archive/_trash/projects"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "_core/me.md").write_text("me\n")
    (root / "_index.md").write_text("# Index\n")
    (root / "_archive/_index.md").write_text("# Archive\n")
    (root / "_archive/projects/old.md").write_text("old\n")
    (root / "projects/real.md").write_text("real\n")
    (root / "projects/sub/deep/file.md").write_text("deep\n")
    (root / "projects/folder.md").mkdir()
    os.symlink(outside, root / "projects/link_out")  # a folder link leaving the root
    os.symlink("../notes", root / "projects/link_in")  # a folder link staying inside
    os.symlink("real.md", root / "projects/alias.md")  # a file link staying inside
    os.symlink(outside / "secret.md", root / "projects/escape.md")  # a file link leaving the root
    os.symlink(base / "nowhere.md", root / "projects/dangling.md")
    os.symlink("../../..", root / "projects/sub/deep/link_up")  # deep link back up to the root
    os.symlink(outside, root / "_archive/link_out")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "projects/fifo.md")

    # The root itself may be a link: users do that.
    root_link = base / "memory-link"
    os.symlink(root, root_link)

    # A root whose child folder `notes` is a link out of it.
    linked = base / "linked-child"
    (linked / "projects").mkdir(parents=True)
    os.symlink(outside, linked / "notes")
    return {"root": root, "root_link": root_link, "linked": linked, "outside": outside}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _build_root(tmp_path_factory.mktemp("paths"))


@pytest.fixture(scope="module")
def root(tree: dict[str, Path]) -> Path:
    return tree["root"]


def assert_one_sentence(message: str, *, strict: bool = True) -> None:
    """One line, `Refusing ...: <problem>.`, no traceback text.

    `strict` (for paths we wrote ourselves) also checks there is no second sentence in the problem part;
    arbitrary generated paths may themselves contain '. X', so the property tests skip that part.
    """
    assert message
    assert "\n" not in message and "\r" not in message
    assert "Traceback" not in message
    assert message.endswith(".")
    assert message.startswith("Refusing")
    if strict:
        assert "Error" not in message
        body = message.rsplit("': ", 1)[-1]
        assert re.search(r"[.!?]\s+[A-Z]", body) is None, message


def refusal(fn: Callable[..., object], *args: object) -> str:
    with pytest.raises(UnsafePath) as info:
        fn(*args)
    message = str(info.value)
    assert_one_sentence(message)
    return message


# ------------------------------------------------------------------------------- lexical: one by one

LEXICAL_REFUSALS = [
    ("", "empty path"),
    ("   ", "empty path"),
    ("/etc/passwd.md", "absolute path"),
    ("/projects/x.md", "absolute path"),
    ("~/x.md", "home-folder alias"),
    ("~alice/projects/x.md", "home-folder alias"),
    ("～/x.md", "home-folder alias"),
    ("projects/~/x.md", "home-folder alias"),
    ("$HOME/x.md", "environment variable"),
    ("${HOME}/projects/x.md", "environment variable"),
    ("%USERPROFILE%/x.md", "environment variable"),
    ("%HOMEDRIVE%%HOMEPATH%/x.md", "environment variable"),
    ("C:", "drive path"),
    ("C:x.md", "drive path"),
    ("c:foo.md", "drive path"),
    ("C:\\Users\\x.md", "drive path"),
    ("C:/Users/x.md", "drive path"),
    ("Ｃ：/x.md", "drive path"),
    ("\\\\server\\share\\x.md", "network (UNC) path"),
    ("//server/share/x.md", "network (UNC) path"),
    ("\\\\?\\C:\\x.md", "network (UNC) path"),
    ("//?/C:/x.md", "network (UNC) path"),
    ("../x.md", "'..'"),
    ("..", "'..'"),
    ("projects/..", "'..'"),
    ("projects/../notes/x.md", "'..'"),
    ("projects/sub/../../../etc/x.md", "'..'"),
    ("．．/x.md", "spelled '．．'"),
    ("projects/．．/x.md", "spelled '．．'"),
    ("‥/x.md", "spelled '‥'"),
    ("projects/%2e%2e/x.md", "URL-encoded"),
    ("projects/%2E%2E%2Fx.md", "URL-encoded"),
    ("projects/..%2fx.md", "URL-encoded"),
    ("projects/%252e%252e/x.md", "URL-encoded"),
    ("projects\\x.md", "backslash"),
    ("projects\\..\\x.md", "backslash"),
    ("projects/x\x00.md", "NUL character"),
    ("projects/x.md\x00.txt", "NUL character"),
    ("projects/x\u200b.md", "U+200B ZERO WIDTH SPACE"),
    ("projects/\u202ex.md", "U+202E"),
    ("projects/x\ufeff.md", "U+FEFF"),
    ("projects/x\n.md", "control character U+000A"),
    ("projects/x\u00a0y.md", "unusual space U+00A0"),
    ("projects／x.md", "looks like a path separator"),
    ("projects＼x.md", "looks like a path separator"),
    ("projects\u2215x.md", "looks like a path separator"),
    ("./projects/x.md", "use 'projects/x.md'"),
    ("projects//x.md", "use 'projects/x.md'"),
    ("projects/x.md/", "use 'projects/x.md'"),
    ("projects/./x.md", "use 'projects/x.md'"),
    ("．/projects/x.md", "use 'projects/x.md'"),
    ("projects/", "ends with '/'"),
    ("a//", "ends with '/'"),
    (".pmem/journal.md", "'.pmem' is hidden"),
    ("projects/.hidden.md", "'.hidden.md' is hidden"),
    ("projects/.git/x.md", "'.git' is hidden"),
    ("projects/．hidden.md", "is hidden"),
    ("...", "is hidden"),
    ("projects/x.MD", "lower-case '.md', as in 'projects/x.md'"),
    ("projects/x.Md", "lower-case '.md'"),
    ("projects/x．md", "ordinary '.md', as in 'projects/x.md'"),
    ("projects/x.txt", "Markdown files ending in '.md'"),
    ("projects/x", "Markdown files ending in '.md'"),
    ("projects/x.md.bak", "Markdown files ending in '.md'"),
    ("projects/" + "a" * 256 + ".md", "longer than 255 bytes"),
    ("projects/" + "é" * 127 + ".md", "longer than 255 bytes"),
    ("projects./x.md", "ends with a dot"),
    ("projects /x.md", "ends with a space"),
    ("projects/ x.md", "starts with a space"),
    ("notes/a:b.md", "':'"),
    ("projects/x.md:stream", "':'"),
]


@pytest.mark.rule("PM-SAFE-1", "PM-SAFE-2")
@pytest.mark.parametrize(("path", "fragment"), LEXICAL_REFUSALS)
def test_lexical_refusal(path: str, fragment: str) -> None:
    message = refusal(normalize_user_path, path)
    assert fragment in message


@pytest.mark.rule("PM-SAFE-2")
def test_refusal_names_invisible_characters_visibly() -> None:
    message = refusal(normalize_user_path, "projects/a\u200bb.md")
    assert "\u200b" not in message
    assert "'projects/a\\u200bb.md'" in message


@pytest.mark.rule("PM-SAFE-2")
def test_very_long_path_is_cut_in_the_message() -> None:
    message = refusal(normalize_user_path, "projects/" + "a/" * 3000 + "x.md")
    assert len(message) < 300


@pytest.mark.rule("PM-SAFE-1")
@pytest.mark.parametrize(
    "path",
    [
        "projects/x.md",
        "projects/sub/deep/file.md",
        "notes/会议（周一）.md",
        "notes/会议：周一.md",
        "notes/my notes.md",
        "projects/v1.2-release.md",
        "projects/100%.md",
        "projects/$5-budget.md",
        "projects/a~b.md",
        "projects/x..md",
        "projects/x...md",
        "_core/me.md",
        "x.md",
    ],
)
def test_normal_paths_pass_unchanged(path: str) -> None:
    assert normalize_user_path(path) == path


# ---------------------------------------------------------------------------------------- protected


@pytest.mark.rule("PM-SAFE-5")
@pytest.mark.parametrize(
    ("rel", "fragment"),
    [
        ("_index.md", "memory index"),
        ("_Index.md", "memory index"),
        ("_INDEX.md", "memory index"),
        ("＿index.md", "memory index"),
        ("_archive/_index.md", "archive index"),
        ("_archive/_INDEX.md", "archive index"),
        ("_ARCHIVE/_Index.md", "archive index"),
        ("_archive", "lifecycle folder"),
        ("_Archive", "lifecycle folder"),
        ("_archive/_trash", "lifecycle folder"),
        ("_archive/_TRASH", "lifecycle folder"),
        ("_core", "lifecycle folder"),
        ("projects", "lifecycle folder"),
        ("Notes", "lifecycle folder"),
        ("ｎｏｔｅｓ", "lifecycle folder"),
        ("_archive/projects/x.md", "original active path"),
        ("_ARCHIVE/projects/x.md", "original active path"),
        ("＿archive/projects/x.md", "original active path"),
        ("_archive/_trash/projects/x.md", "original active path"),
        ("_core/x.md", "protected core memory"),
        ("_Core/x.md", "protected core memory"),
        ("_CORE/sub/x.md", "protected core memory"),
        (".pmem", "metadata"),
        (".PMEM/lock.md", "metadata"),
        ("projects/.secret.md", "metadata"),
    ],
)
def test_protected_reason(rel: str, fragment: str) -> None:
    reason = protected_reason(rel)
    assert reason is not None
    assert fragment in reason


@pytest.mark.rule("PM-SAFE-5")
@pytest.mark.parametrize(
    "rel", ["projects/x.md", "notes/a/b.md", "projects/_index.md", "projects/_archive/x.md", "archive/x.md"]
)
def test_not_protected(rel: str) -> None:
    assert protected_reason(rel) is None


# -------------------------------------------------------------------------------- check_memory_path


@pytest.mark.rule("PM-SAFE-1", "PM-SAFE-3")
@pytest.mark.parametrize(
    ("path", "area"),
    [
        ("projects/real.md", Area.ACTIVE),
        ("projects/new.md", Area.ACTIVE),
        ("projects/newdir/deeper/x.md", Area.ACTIVE),
        ("projects/sub/deep/file.md", Area.ACTIVE),
        ("notes/会议（周一）.md", Area.ACTIVE),
        ("notes/x.md", Area.CORE),
        ("_core/me.md", Area.CORE),
        ("_core/new.md", Area.CORE),
    ],
)
def test_accepted(root: Path, tree: dict[str, Path], path: str, area: Area) -> None:
    assert check_memory_path(root, path, area) == path
    # The root itself may be a symbolic link.
    assert check_memory_path(tree["root_link"], path, area) == path


@pytest.mark.rule("PM-SAFE-1", "PM-SAFE-3")
def test_missing_root_is_fine_for_a_first_save(tmp_path: Path) -> None:
    assert check_memory_path(tmp_path / "not-yet", "notes/x.md", Area.CORE) == "notes/x.md"


@pytest.mark.rule("PM-SAFE-2")
def test_root_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert "not a folder" in refusal(check_memory_path, tmp_path / "file", "notes/x.md", Area.CORE)


@pytest.mark.rule("PM-SAFE-5")
@pytest.mark.parametrize(
    ("path", "area", "fragment"),
    [
        ("Projects/x.md", Area.ACTIVE, "spelled 'projects', as in 'projects/x.md'"),
        ("PROJECTS/x.md", Area.CORE, "spelled 'projects'"),
        ("ｐｒｏｊｅｃｔｓ/x.md", Area.ACTIVE, "spelled 'projects'"),
        ("Notes/a/x.md", Area.ACTIVE, "spelled 'notes', as in 'notes/a/x.md'"),
        ("other/x.md", Area.ACTIVE, "projects/ or notes/"),
        ("x.md", Area.ACTIVE, "projects/ or notes/"),
        ("x.md", Area.CORE, "projects/, notes/ or _core/"),
        ("_core/me.md", Area.ACTIVE, "protected core memory"),
        ("_Core/x.md", Area.ACTIVE, "protected core memory"),
        ("_Core/x.md", Area.CORE, "spelled '_core', as in '_core/x.md'"),
        ("_core/sub/x.md", Area.CORE, "one level deep"),
        ("_index.md", Area.CORE, "memory index"),
        ("_archive/projects/old.md", Area.ACTIVE, "original active path"),
    ],
)
def test_area_refusals(root: Path, path: str, area: Area, fragment: str) -> None:
    assert fragment in refusal(check_memory_path, root, path, area)


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("projects/link_out/x.md", "'projects/link_out' is a symbolic link"),
        ("projects/link_out/sub/x.md", "'projects/link_out' is a symbolic link"),
        ("projects/link_in/x.md", "'projects/link_in' is a symbolic link"),
        ("projects/alias.md", "'projects/alias.md' is a symbolic link"),
        ("projects/escape.md", "'projects/escape.md' is a symbolic link"),
        ("projects/dangling.md", "'projects/dangling.md' is a symbolic link"),
        ("projects/sub/deep/link_up/x.md", "'projects/sub/deep/link_up' is a symbolic link"),
        ("projects/sub/deep/link_up/projects/real.md", "is a symbolic link"),
        ("projects/real.md/x.md", "'projects/real.md' is a file, not a folder"),
        ("projects/folder.md", "'projects/folder.md' is a folder"),
    ],
)
def test_filesystem_refusals(root: Path, tree: dict[str, Path], path: str, fragment: str) -> None:
    assert fragment in refusal(check_memory_path, root, path, Area.ACTIVE)
    assert fragment in refusal(check_memory_path, tree["root_link"], path, Area.ACTIVE)


@pytest.mark.rule("PM-SAFE-3")
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_not_a_regular_file(root: Path) -> None:
    assert "not a regular file" in refusal(check_memory_path, root, "projects/fifo.md", Area.ACTIVE)


@pytest.mark.rule("PM-SAFE-3")
def test_child_of_root_that_is_a_link(tree: dict[str, Path]) -> None:
    message = refusal(check_memory_path, tree["linked"], "notes/x.md", Area.ACTIVE)
    assert "'notes' is a symbolic link" in message
    assert check_memory_path(tree["linked"], "projects/x.md", Area.ACTIVE) == "projects/x.md"


# ------------------------------------------------------------------------------------- fixed corpus

# Known-bad for both areas.
BAD_CORPUS = [path for path, _fragment in LEXICAL_REFUSALS] + [
    "_index.md",
    "_Index.md",
    "_INDEX.md",
    "_archive/_index.md",
    "_archive/_INDEX.md",
    "_ARCHIVE/projects/x.md",
    "＿archive/projects/x.md",
    "_archive/projects/old.md",
    "_archive/_trash/projects/x.md",
    "_Archive/_Trash/projects/x.md",
    "_Core/x.md",
    "_CORE/me.md",
    "＿core/me.md",
    "_core/sub/x.md",
    "Projects/x.md",
    "PROJECTS/x.md",
    "ｐｒｏｊｅｃｔｓ/x.md",
    "Notes/x.md",
    "x.md",
    "other/x.md",
    "archive/projects/x.md",
    "projects/link_out/x.md",
    "projects/link_out/sub/x.md",
    "projects/link_in/x.md",
    "projects/alias.md",
    "projects/escape.md",
    "projects/dangling.md",
    "projects/sub/deep/link_up/x.md",
    "projects/sub/deep/link_up/projects/real.md",
    "projects/real.md/x.md",
    "projects/folder.md",
]
# Known-bad as an active path, fine as a save target.
BAD_ACTIVE_ONLY = ["_core/me.md", "_core/new.md"]


def test_corpus_is_large() -> None:
    assert len(set(BAD_CORPUS)) >= 60


@pytest.mark.rule("PM-SAFE-1", "PM-SAFE-2", "PM-SAFE-3", "PM-SAFE-5")
@pytest.mark.parametrize("path", BAD_CORPUS)
def test_corpus_refused_in_every_area(root: Path, tree: dict[str, Path], path: str) -> None:
    for area in Area:
        refusal(check_memory_path, root, path, area)
        refusal(check_memory_path, tree["root_link"], path, area)


@pytest.mark.rule("PM-SAFE-5")
@pytest.mark.parametrize("path", BAD_ACTIVE_ONLY)
def test_core_refused_as_active(root: Path, path: str) -> None:
    refusal(check_memory_path, root, path, Area.ACTIVE)
    assert check_memory_path(root, path, Area.CORE) == path


# ---------------------------------------------------------------------------- locations and inside


@pytest.mark.rule("PM-ARC-3", "PM-DEL-2")
def test_location_path() -> None:
    assert location_path("projects/x.md", "active") == "projects/x.md"
    assert location_path("projects/x.md", "archive") == "_archive/projects/x.md"
    assert location_path("notes/a/b.md", "trash") == "_archive/_trash/notes/a/b.md"
    with pytest.raises(ValueError):
        location_path("projects/x.md", "elsewhere")


@pytest.mark.rule("PM-SAFE-3")
def test_check_existing_inside(root: Path, tree: dict[str, Path]) -> None:
    check_existing_inside(root, "_archive/projects/old.md")
    check_existing_inside(root, "_archive/_trash/projects/new.md")  # not there yet: fine
    check_existing_inside(tree["root_link"], "_archive/projects/old.md")
    assert "symbolic link" in refusal(check_existing_inside, root, "_archive/link_out/x.md")
    assert "symbolic link" in refusal(check_existing_inside, root, "projects/alias.md")
    for bad in ["", "/etc/x.md", "_archive/../../x.md", "_archive//x.md", "C:/x.md", "a\\b.md", "．．/x.md"]:
        refusal(check_existing_inside, root, bad)


# --------------------------------------------------------------------------------------- properties

_PROPERTY_BASE = tempfile.TemporaryDirectory(prefix="pmem-paths-")
_PROPERTY_TREE = _build_root(Path(_PROPERTY_BASE.name))


@pytest.fixture(scope="module", autouse=True)
def _cleanup_property_tree() -> Iterator[None]:
    yield
    _PROPERTY_BASE.cleanup()


PIECES = [
    "..", ".", "...", "~", "~root", "_archive", "_ARCHIVE", "＿archive", "_trash", "_index.md", "_Index.md",
    "_core", "_Core", "projects", "Projects", "notes", "ｎｏｔｅｓ", ".pmem", "．．", "‥", "．", "C:", "c:",
    "\\", "/", ":", "：", "$HOME", "${HOME}", "%USERPROFILE%", "%2e%2e", "%2f", "", " ", "\x00", "\u200b",
    "／", "＼", "～", "md", ".md", ".MD", "link_out", "link_in", "alias.md", "escape.md", "dangling.md",
    "sub", "deep", "link_up", "real.md", "x.md", "new.md", "folder.md", "fifo.md", "file.md", "old.md",
]  # fmt: skip
ADVERSARIAL_CHARS = "./\\~:$%{}_-aAx．‥／＼～：\x00\u200b\u202e é会"

_piece = st.sampled_from(PIECES)
_component = st.one_of(
    _piece,
    st.lists(_piece, min_size=1, max_size=3).map("".join),
    st.text(alphabet=ADVERSARIAL_CHARS, max_size=6),
    st.text(max_size=4),
)
_first = st.one_of(st.sampled_from(["projects", "notes", "_core", "_archive"]), _component)
_last = st.one_of(st.sampled_from(["x.md", "real.md", "alias.md", "escape.md", "fifo.md"]), _component)
_separator = st.sampled_from(["/", "/", "/", "/", "//", "\\", "／"])
_structured = st.tuples(
    st.sampled_from(["", "", "", "/", "./", "~/", "C:", "//"]),
    _first,
    st.lists(st.tuples(_separator, _component), max_size=4),
    _separator,
    _last,
).map(lambda t: t[0] + t[1] + "".join(sep + comp for sep, comp in t[2]) + t[3] + t[4])
# Mostly well-formed paths, so that many examples get past the lexical checks and reach the file system.
BENIGN = [
    "sub", "deep", "link_out", "link_in", "link_up", "alias.md", "escape.md", "real.md", "folder.md", "new",
    "新しい", "a b", "x..y", "_archive", "_index.md", "projects", "notes", "_core", "..", "．．", ".pmem",
]  # fmt: skip
_plausible = st.tuples(
    st.sampled_from(["projects", "notes", "_core", "Projects", "_archive", "_Core"]),
    st.lists(st.sampled_from(BENIGN), max_size=4),
    st.one_of(
        st.sampled_from(["x.md", "real.md", "alias.md", "escape.md", "fifo.md", "file.md", "dangling.md"]),
        st.sampled_from(["folder.md", "会议（周一）.md", "_index.md", ".md", "x.MD"]),
        st.text(alphabet="abcXYZ019-_ .é会", min_size=1, max_size=8).map(lambda name: name + ".md"),
    ),
).map(lambda t: "/".join([t[0], *t[1], t[2]]))
ADVERSARIAL = st.one_of(
    _plausible, _structured, st.text(alphabet=ADVERSARIAL_CHARS, max_size=30), st.text(max_size=30)
)


def _nfkc_parts(rel: str) -> list[str]:
    return [unicodedata.normalize("NFKC", p) for p in rel.split("/")]


def _assert_lexically_safe(original: str, rel: str) -> None:
    assert rel == original
    assert rel and not rel.startswith(("/", "~"))
    assert "\\" not in rel and ":" not in rel and "\x00" not in rel
    parts = _nfkc_parts(rel)
    assert all(parts), rel
    assert all(not p.startswith(".") for p in parts), rel  # no '.', '..' or hidden name in any spelling
    assert rel.endswith(".md")
    assert all(unicodedata.category(ch) not in ("Cc", "Cf") for ch in rel)


@pytest.mark.rule("PM-SAFE-1", "PM-SAFE-2")
@settings(max_examples=examples(10_000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ADVERSARIAL)
def test_property_normalize(candidate: str) -> None:
    try:
        rel = normalize_user_path(candidate)
    except UnsafePath as err:
        assert_one_sentence(str(err), strict=False)
        event("refused")
        return
    event("accepted")
    _assert_lexically_safe(candidate, rel)


@pytest.mark.rule("PM-SAFE-2", "PM-SAFE-3", "PM-SAFE-5")
@settings(max_examples=examples(10_000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    candidate=ADVERSARIAL,
    area=st.sampled_from(list(Area)),
    root_key=st.sampled_from(["root", "root_link", "linked"]),
)
def test_property_check_memory_path(candidate: str, area: Area, root_key: str) -> None:
    root = _PROPERTY_TREE[root_key]
    try:
        rel = check_memory_path(root, candidate, area)
    except UnsafePath as err:
        assert_one_sentence(str(err), strict=False)
        event("refused")
        return
    event("accepted")
    _assert_lexically_safe(candidate, rel)
    parts = rel.split("/")
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(root, rel))
    assert os.path.commonpath([real, real_root]) == real_root
    # No existing component below the root is a link (checked independently of the code under test).
    here = real_root
    for part in parts:
        here = os.path.join(here, part)
        if not os.path.lexists(here):
            break
        assert not os.path.islink(here), rel
    assert not any(p.startswith(".") for p in _nfkc_parts(rel))
    if area is Area.CORE and parts[0] == "_core":
        assert len(parts) == 2
    else:
        assert protected_reason(rel) is None, rel
        assert parts[0] in ("projects", "notes")
