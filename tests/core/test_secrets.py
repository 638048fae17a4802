"""Content that looks like a secret is refused (pmem_tui.core.secrets); ordinary memory prose is not."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmem_tui.core.errors import SecretFound
from pmem_tui.core.secrets import SecretHit, check_no_secrets, find_secrets


def fake(text: str) -> str:
    """Fake credentials are written with a '·' that is removed at run time, so that no secret scanner
    (or push protection) flags this file for holding the very shapes it tests."""
    return text.replace("·", "")


# Fake credentials in the well-known shapes (documentation examples and made-up values, none real).
RAW_POSITIVES = [
    ("AKIA·IOSFODNN7EXAMPLE", "AWS access key"),
    ("- aws key id: AKIA·I44QH8DHBEXAMPLE (prod)", "AWS access key"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "API key or token"),
    ("-----BEGIN RSA PRIV·ATE KEY-----", "private key"),
    ("-----BEGIN OPENSSH PRIV·ATE KEY-----", "private key"),
    ("-----BEGIN ENCRYPTED PRIV·ATE KEY-----", "private key"),
    ("-----BEGIN PGP PRIV·ATE KEY BLOCK-----", "private key"),
    ("token: ghp·_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx", "GitHub token"),
    ("my PAT is ghp·_abcdefghijklmnopqrstuvwx1234", "GitHub token"),
    ("github_pat·_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GitHub token"),
    ("glpat·-AbCdEfGhIjKlMnOpQrSt", "GitLab token"),
    ("xoxb·-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "Slack token"),
    ("https://hooks.slack.com/services/T·00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "Slack token"),
    ("sk_live·_4eC39HqLyjWDarjtT1zdp7dc", "Stripe key"),
    ("STRIPE=sk_test·_51H8abcDEF123ghiJKL456mno", "Stripe key"),
    (
        "jwt: eyJ·hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
        "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "JSON web token",
    ),
    ("db url: postgres:·//admin:s3cretPw@db.example.com:5432/app", "password in a URL"),
    ("OPENAI_API_KEY=sk-·proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "API key"),
    ("anthropic: sk-·ant-api03-AbCdEf0123456789AbCdEf0123456789", "API key"),
    ("curl -H 'Authorization: Bearer 9f8e7d6c·5b4a3f2e1d0c9b8a7f6e'", "bearer token"),
    ("Authorization: Ba·sic dXNlcjpwYXNzd29yZA==", "basic auth credentials"),
    ("api_key: 9f8e7d6c5b4a3f2e1d0c9b8a", "API key or token"),
    ("client_secret=Zx81kQp0Lm2Nv7Rt4Yw9", "API key or token"),
    ("AIza·SyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q", "Google API key"),
    ("hf·_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "Hugging Face token"),
    ("password: hunter22", "password"),
    ("Password = correcthorse9", "password"),
    ("- **Password:** Tr0ub4dor&3", "password"),
    ('password = "open sesame"', "password"),
    ("DB_PASSWORD=p4ssw0rd!", "password"),
    ("wifi passwd=letmein42", "password"),
    ("密码：abc12345", "password"),
    ("口令: Zq9!xx7", "password"),
    ("sec·ret: 'x9Kq2mPz'", "password or secret"),
    ("SG·.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ", "SendGrid API key"),
]


POSITIVES = [(fake(line), kind) for line, kind in RAW_POSITIVES]


@pytest.mark.rule("PM-CORE-6")
@pytest.mark.parametrize(("line", "kind"), POSITIVES)
def test_secret_is_found(line: str, kind: str) -> None:
    text = f"# Notes\n\nSome context.\n{line}\nMore text.\n"
    assert find_secrets(text) == [SecretHit(4, kind)]


# Realistic memory lines that must save without a false alarm.
NEGATIVES = [
    "We decided to rotate the password policy next quarter.",
    "password manager: 1Password",
    "Password: stored in 1Password, not here",
    "Password: 1Password",
    "password: <your password here>",
    "password = ${DB_PASSWORD}",
    "Password: required",
    "- Passwords must be at least 12 characters.",
    "passwordless login via magic links is the default",
    "password_policy: strict",
    "pwd: /home/alex/projects",
    "token budget: 120",
    "max_tokens: 4096",
    "The token is short-lived (15 minutes).",
    "Use a Bearer token in the Authorization header.",
    "api_key: see vault",
    "secret: none",
    'The secret: "ship small, ship often".',
    "The secret to good memory is brevity.",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "commit 3f2a9c1b7e4d5a6f8b9c0d1e2f3a4b5c6d7e8f90 fixed the importer bug",
    "uuid 123e4567-e89b-12d3-a456-426614174000 is the tenant id",
    "See [the design doc](https://example.com/docs/design-v2.md) for details.",
    "Repo: https://github.com/octocat/Hello-World",
    "- [password reset flow](notes/password-reset.md) — how resets work",
    "用户偏好：简洁的回答，使用中文。",
    "密码：每季度轮换一次",
    "决定：下季度更换密码策略。",
    "- **Status:** concluded; archived the API key rotation project",
    "Meeting at 10:30 with the AWS team about key rotation.",
    "sk-learn is what people mistype for scikit-learn",
    "Public DNS 8.8.8.8 answers slowly from the office.",
    "APPROXIMATELY APACHEKAFKA APEXLEGENDS",
    "| secret | value |",
    "Keep SSH keys in ~/.ssh, never in memory.",
    "Email: alex@example.com; phone on request",
    "Build id: 20261130.4, version 2.4.1",
]


@pytest.mark.rule("PM-CORE-6")
@pytest.mark.parametrize("line", NEGATIVES)
def test_ordinary_memory_is_not_a_secret(line: str) -> None:
    assert find_secrets(line) == []


@pytest.mark.rule("PM-CORE-6")
def test_whole_ordinary_file_passes() -> None:
    text = "# Alpha\r\n\r\n## Summary\r\n" + "".join(f"- {line}\r\n" for line in NEGATIVES)
    assert find_secrets(text) == []
    check_no_secrets(text, "projects/alpha.md")


@pytest.mark.rule("PM-CORE-6")
def test_refusal_sentence_for_one_line() -> None:
    text = "# Deploy\n\nSteps.\nkey " + fake("AKIA·IOSFODNN7EXAMPLE") + "\n"
    with pytest.raises(SecretFound) as info:
        check_no_secrets(text, "notes/x.md")
    assert str(info.value) == (
        "Refusing to save notes/x.md: line 4 looks like a secret (AWS access key); "
        "memory is plain text and must not hold secrets."
    )


@pytest.mark.rule("PM-CORE-6")
def test_refusal_sentence_for_several_lines() -> None:
    text = "password: hunter22\nok\n" + fake("AKIA·IOSFODNN7EXAMPLE") + "\n"
    with pytest.raises(SecretFound) as info:
        check_no_secrets(text, "notes/x.md")
    message = str(info.value)
    assert message == (
        "Refusing to save notes/x.md: lines 1 and 3 look like secrets (password, AWS access key); "
        "memory is plain text and must not hold secrets."
    )
    assert "\n" not in message


@pytest.mark.rule("PM-CORE-6")
def test_many_lines_are_summarised() -> None:
    text = "\n".join(f"password: hunter{n:02d}" for n in range(9))
    hits = find_secrets(text)
    assert [hit.line_no for hit in hits] == list(range(1, 10))
    with pytest.raises(SecretFound, match=r"lines 1, 2, 3, 4, 5 and 4 more look like secrets \(password\)"):
        check_no_secrets(text, "notes/x.md")


@pytest.mark.rule("PM-CORE-6")
def test_secret_in_a_very_long_line_is_found() -> None:
    line = "x " * 20_000 + fake("ghp·_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx ") + "y " * 20_000
    assert find_secrets(line) == [SecretHit(1, "GitHub token")]


@pytest.mark.rule("PM-CORE-6")
def test_empty_text() -> None:
    assert find_secrets("") == []
    check_no_secrets("", "notes/x.md")


def test_import_is_lazy() -> None:
    """Importing the module must not import detect-secrets (it costs ~100 ms at start-up)."""
    code = "import sys, pmem_tui.core.secrets; print('detect_secrets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.rule("PM-CORE-6")
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_hits_in_line_order(text: str) -> None:
    hits = find_secrets(text)
    numbers = [hit.line_no for hit in hits]
    assert numbers == sorted(set(numbers))
    assert all(1 <= n <= text.count("\n") + 1 for n in numbers)


# The screen's fast path (needles on ASCII text) must answer exactly what its regex answers.
_SCREEN_WORDS = st.sampled_from(
    ["pass", "Passw", "PWD", "secret", "TOKEN", "bearer", "pin", " pin ", "priv", "ibm", "hmac",
     "authoriZation", "api_key", "Access-Key", "://u:p@h", "db pass", "密码", "ſecret", "K", "x" * 19,
     "y" * 20, "a=b", "\t"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_SCREEN_WORDS, st.text(max_size=12)), max_size=12).map("".join))
def test_the_fast_screen_answers_what_its_regex_answers(line: str) -> None:
    from pmem_tui.core import secrets

    assert secrets._screen(line) == (secrets._SCREEN_RE.search(line) is not None)
    if not secrets._may_match(line):
        assert secrets._SCREEN_RE.search(line) is None


_ASCII_LINES = st.lists(
    st.one_of(
        _SCREEN_WORDS.filter(str.isascii), st.text(alphabet=st.characters(max_codepoint=127), max_size=30)
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_ASCII_LINES)
def test_the_whole_text_screen_finds_the_lines_each_line_screen_finds(text: str) -> None:
    """On ASCII text, the needles and long runs found over the whole text are those of each line."""
    import re

    from pmem_tui.core import secrets

    lines = text.split("\n")
    assert secrets._needle_lines(text, lines) == [
        i for i, line in enumerate(lines) if secrets._may_match(line)
    ]
    long_run = re.search(r"[A-Za-z0-9_+=-]{20,}", text) is not None
    assert (secrets._RUN in secrets._runs(text)) == long_run
    assert find_secrets(text, screened=True) == find_secrets(text)
