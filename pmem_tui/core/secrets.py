"""Refuse content that looks like a secret: memory is plain text and must not hold secrets (PM-CORE-6).

The token-format detectors of detect-secrets (Apache-2.0) do most of the work. They are called directly,
line by line, through `analyze_string`: no baseline, no global settings, no network verification, and
none of the entropy detectors (they flag ordinary hashes and prose). A few regexes of our own cover what
those detectors miss in Markdown: unquoted `password: value` lines (also `密码：`), every kind of
`-----BEGIN ... PRIVATE KEY-----`, `sk-...` API keys, short `ghp_` tokens, `Bearer <token>`, and prose
such as "the wifi password is hunter2" or "my PIN is 4821".

Precision matters as much as recall here: a false alarm blocks a save. Values that are placeholders
(`<password>`, `${TOKEN}`, `***`, `none`, `see 1Password`...) or prose (several words) are not secrets.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pmem_tui.core.errors import SecretFound

__all__ = ["REDACTED", "SecretHit", "check_no_secrets", "find_secrets", "redact_secrets"]


@dataclass(frozen=True)
class SecretHit:
    line_no: int  # 1-based
    kind: str  # for a person: "AWS access key", "password", ...


# detect-secrets plugin (module, class) -> the kind we show. High-precision token formats only: the
# entropy detectors, the public-IP detector (not a secret) and the Artifactory detector (its `AP[0-9A-F]...`
# pattern matches ordinary upper-case words) are left out on purpose.
_PLUGINS: tuple[tuple[str, str, str], ...] = (
    ("aws", "AWSKeyDetector", "AWS access key"),
    ("private_key", "PrivateKeyDetector", "private key"),
    ("github_token", "GitHubTokenDetector", "GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "GitLab token"),
    ("openai", "OpenAIDetector", "OpenAI API key"),
    ("slack", "SlackDetector", "Slack token"),
    ("stripe", "StripeDetector", "Stripe key"),
    ("jwt", "JwtTokenDetector", "JSON web token"),
    ("azure_storage_key", "AzureStorageKeyDetector", "Azure storage key"),
    ("discord", "DiscordBotTokenDetector", "Discord bot token"),
    ("mailchimp", "MailchimpDetector", "Mailchimp key"),
    ("npm", "NpmDetector", "npm token"),
    ("pypi_token", "PypiTokenDetector", "PyPI token"),
    ("sendgrid", "SendGridDetector", "SendGrid API key"),
    ("square_oauth", "SquareOAuthDetector", "Square OAuth secret"),
    ("telegram_token", "TelegramBotTokenDetector", "Telegram bot token"),
    ("twilio", "TwilioKeyDetector", "Twilio API key"),
    ("cloudant", "CloudantDetector", "Cloudant credentials"),
    ("ibm_cloud_iam", "IbmCloudIamDetector", "IBM Cloud IAM key"),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "IBM COS HMAC credentials"),
    ("softlayer", "SoftlayerDetector", "SoftLayer credentials"),
    ("basic_auth", "BasicAuthDetector", "password in a URL"),
    # Last: a quoted value after a secret-sounding name (`password = "..."`, `secret: '...'`).
    ("keyword", "KeywordDetector", "password or secret"),
)
_KEYWORD_KIND = "password or secret"
_URL_PASSWORD_KIND = "password in a URL"

# Lines longer than this are scanned in overlapping windows, so no regex ever sees a huge input.
_WINDOW = 4096
_OVERLAP = 256

# Values that name or stand for a secret without being one.
_PLACEHOLDER_WORDS = frozenset(
    {
        "none", "null", "nil", "empty", "unset", "blank", "n/a", "na", "tbd", "todo", "tba", "redacted",
        "hidden", "masked", "omitted", "removed", "secret", "secrets", "password", "passwords", "passwd",
        "pwd", "token", "key", "required", "optional", "yes", "no", "true", "false", "on", "off", "enabled",
        "disabled", "example", "placeholder", "dummy", "sample", "changed", "rotated", "reset", "expired",
        "revoked", "set", "same", "default", "env", "weak", "strong", "rotation", "policy", "manager",
        "protected", "encrypted", "shared", "personal", "unknown", "lost", "forgotten", "temporary", "random",
        "generated", "saved", "stored", "1password", "bitwarden", "keepass", "keepassxc", "lastpass",
        "dashlane", "keychain", "vault", "sops",
    }
)  # fmt: skip
_TEMPLATE_RE = re.compile(r"^(?:\{.*\}|<.*>|\$\{.*\}|\$\(.*\)|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|\{\{.*\}\})$")
_REFERENCE_RE = re.compile(
    r"^(?:https?://|file://|/|\./|\.\./|~/|env:|vault:|op://|keychain:|ssm:|arn:)", re.I
)
_QUOTES = "\"'`"

_VALUE = r"(?P<value>.+?)\s*$"
_ASSIGN = r"[\"'`*_]*\s*(?:=>|:=|::|[:=：])\s*"
_PASSWORD_RE = re.compile(
    r"(?<![\w-])(?:(?:[a-z0-9]+[_.-])*(?:password|passwd|passwort|passphrase|pwd)s?|(?:[a-z0-9]+[_-])+pass)"
    + _ASSIGN
    + _VALUE,
    re.IGNORECASE,
)
_PASSWORD_CJK_RE = re.compile(r"(?:密码|密碼|口令)\s*(?:[:=：])\s*" + _VALUE)
_TOKEN_ASSIGN_RE = re.compile(
    r"(?<![\w-])(?:[a-z0-9]+[_.-])*"
    r"(?:api[_-]?key|apikey|api[_-]?token|access[_-]?key(?:[_-]?id)?|secret[_-]?(?:access[_-]?)?key|"
    r"client[_-]?secret|(?:auth|access|refresh|session|bearer|bot|app)[_-]?token|private[_-]?key|"
    r"secret|token)" + _ASSIGN + _VALUE,
    re.IGNORECASE,
)
# Prose: "the wifi password is hunter2", "my PIN is 4821" (a copula, then one token).
_IS = r"(?:\s+(?:for|of|to|on)\s+(?:the\s+|my\s+)?[\w.@-]+)?\s+(?:is|was|is\s+now|is\s+still)\s+"
_PROSE_PASSWORD_RE = re.compile(
    r"(?<![\w-])(?:password|passwd|passphrase|passcode|passwort)" + _IS + r"(?P<value>\S+)", re.IGNORECASE
)
_PIN_RE = re.compile(r"(?<![\w-])pin(?:\s+(?:code|number))?" + _IS + r"(?P<value>\d{4,12})(?![\w-])", re.I)
_PRIVATE_KEY_RE = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d")
_SK_RE = re.compile(r"(?<![\w-])sk-(?P<body>[A-Za-z0-9_-]{20,})")
_GITHUB_RE = re.compile(r"(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,})")
_STRIPE_TEST_RE = re.compile(r"(?<!\w)[sr]k_(?:live|test)_[0-9A-Za-z]{16,}")
_GOOGLE_RE = re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}")
_HUGGINGFACE_RE = re.compile(r"(?<!\w)hf_[A-Za-z0-9]{30,}")
_BEARER_RE = re.compile(r"(?<!\w)bearer\s+(?P<body>[A-Za-z0-9._~+/-]{16,}=*)", re.IGNORECASE)
_BASIC_RE = re.compile(r"(?<!\w)authorization\s*[:=]\s*basic\s+[A-Za-z0-9+/]{8,}={0,2}", re.IGNORECASE)


# ------------------------------------------------------------------------------------------ helpers


def _clean(value: str) -> tuple[str, bool]:
    """The value with Markdown emphasis and surrounding quotes removed, and whether it was quoted."""
    value = value.strip().strip("*_").strip()
    quoted = len(value) >= 2 and value[0] in _QUOTES and value[-1] == value[0]
    value = value[1:-1] if quoted else value.rstrip(".,;)")
    return value.strip(), quoted


def _is_placeholder(value: str) -> bool:
    bare = value.strip(_QUOTES + "*_ ")
    if len(bare) < 2:
        return True
    if _TEMPLATE_RE.match(bare) or _REFERENCE_RE.match(bare):
        return True
    if not any(ch.isalnum() for ch in bare) or len(set(bare.lower())) == 1:  # `****`, `xxxxxx`, `...`
        return True
    low = bare.lower().rstrip(".!")
    return low in _PLACEHOLDER_WORDS or low.startswith(("your", "my_", "<", "redacted", "[redacted", "xxx"))


def _random_looking(token: str, min_len: int) -> bool:
    """Long enough, with letters and digits: an identifier-like word or a number is not a key."""
    return (
        len(token) >= min_len
        and any(ch.isdigit() for ch in token)
        and any(ch.isalpha() for ch in token)
        and not _is_placeholder(token)
    )


def _password_value(value: str) -> bool:
    """`password: <value>`: a secret unless the value is a placeholder, a reference or prose."""
    value, quoted = _clean(value)
    if not value or _is_placeholder(value):
        return False
    if quoted:
        return True
    # Unquoted: one printable-ASCII token. Several words ("rotate every 90 days") or CJK prose is a note.
    return len(value) >= 4 and value.isascii() and value.isprintable() and not any(c.isspace() for c in value)


def _prose_password(value: str) -> bool:
    """After "password is": a secret only when the word has a digit or a symbol ("hunter2", not "long")."""
    cleaned, quoted = _clean(value)
    has_mark = any(c.isdigit() or not c.isalnum() for c in cleaned)
    return _password_value(value) and (quoted or has_mark)


def _token_value(value: str) -> bool:
    value, _quoted = _clean(value)
    if any(c.isspace() for c in value) or not value.isascii():
        return False
    return _random_looking(value, 16)


def _sk_key(match: re.Match[str]) -> bool:
    body = match.group("body")
    mixed_case = any(c.isupper() for c in body) and any(c.islower() for c in body)
    return _random_looking(body, 20) and (mixed_case or len(body) >= 32)


def _bearer(match: re.Match[str]) -> bool:
    return _random_looking(match.group("body"), 16)


def _assignment(check: Callable[[str], bool]) -> Callable[[re.Match[str]], bool]:
    return lambda match: check(match.group("value"))


def _always(_match: re.Match[str]) -> bool:
    return True


# Our own rules, after the detect-secrets detectors: (kind, regex, accept a match?).
_RULES: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool]], ...] = (
    ("private key", _PRIVATE_KEY_RE, _always),
    ("GitHub token", _GITHUB_RE, _always),
    ("Stripe key", _STRIPE_TEST_RE, _always),
    ("Google API key", _GOOGLE_RE, _always),
    ("Hugging Face token", _HUGGINGFACE_RE, _always),
    ("API key", _SK_RE, _sk_key),
    ("bearer token", _BEARER_RE, _bearer),
    ("basic auth credentials", _BASIC_RE, _always),
    ("password", _PASSWORD_RE, _assignment(_password_value)),
    ("password", _PASSWORD_CJK_RE, _assignment(_password_value)),
    ("password", _PROSE_PASSWORD_RE, _assignment(_prose_password)),
    ("PIN", _PIN_RE, _always),
    ("API key or token", _TOKEN_ASSIGN_RE, _assignment(_token_value)),
)


@functools.cache
def _plugins() -> tuple[tuple[Any, str], ...]:
    """The detect-secrets plugins, imported on first use (the package takes ~100 ms to import)."""
    import importlib

    found: list[tuple[Any, str]] = []
    for module_name, class_name, kind in _PLUGINS:
        try:
            module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
        except ImportError:  # pragma: no cover - a detect-secrets without this plugin
            continue
        cls = getattr(module, class_name, None)
        if cls is not None:
            found.append((cls(), kind))
    return tuple(found)


def _windows(line: str) -> Iterable[str]:
    if len(line) <= _WINDOW:
        yield line
        return
    step = _WINDOW - _OVERLAP
    for start in range(0, len(line), step):
        yield line[start : start + _WINDOW]
        if start + _WINDOW >= len(line):
            break


def _plugin_values(plugin: Any, kind: str, line: str) -> Iterator[str]:
    for value in plugin.analyze_string(line):
        if not isinstance(value, str):
            continue
        if kind == _KEYWORD_KIND:
            cleaned, _quoted = _clean(value)
            # A quoted sentence after "secret:" is prose, not a credential.
            if _is_placeholder(cleaned) or any(c.isspace() for c in cleaned):
                continue
        elif kind == _URL_PASSWORD_KIND and _is_placeholder(value):
            continue  # https://user:<password>@host
        yield value


def _rule_value(match: re.Match[str]) -> str:
    """The secret itself in a rule's match: its value or body, else all of it."""
    for group in ("value", "body"):
        if group in match.re.groupindex:
            return _clean(match.group(group))[0]
    return match.group(0)


def _line_kind(line: str) -> str | None:
    for chunk in _windows(line):
        for plugin, kind in _plugins():
            if next(_plugin_values(plugin, kind, chunk), None) is not None:
                return kind
        for kind, regex, accept in _RULES:
            if any(accept(m) for m in regex.finditer(chunk)):
                return kind
    return None


def _line_values(line: str) -> list[str]:
    """Every secret value the detectors see on one line (what a redaction replaces)."""
    found: list[str] = []
    for chunk in _windows(line):
        for plugin, kind in _plugins():
            found += _plugin_values(plugin, kind, chunk)
        for _kind, regex, accept in _RULES:
            found += (_rule_value(m) for m in regex.finditer(chunk) if accept(m))
    return [v for v in found if v]


# A line can hold a secret only with a secret-sounding word, a URL with a password or a long token in it:
# memory-wide scans (`find_secrets(..., screened=True)`) run the detectors on those lines only.
_SCREEN_RE = re.compile(
    r"passw|passph|[_-]pass|(?:db|key|database)pass|pwd|secret|token|bearer|credential|\bpin\b|priv|putty"
    r"|contrase|cloudant|cldt|ibm|softlayer|hmac|authori[sz]ation|(?:api|auth|service|account|db|database"
    r"|client|access)[_ -]?key|密码|密碼|口令|://[^\s/]*:[^\s/]*@|[A-Za-z0-9_+=-]{20,}",
    re.IGNORECASE,
)


# ------------------------------------------------------------------------------------------- public


# A substring of every match of `_SCREEN_RE` (lower case), and its one pattern with no fixed word. On ASCII
# text, where `lower()` is exactly the regex's case folding, none of them present means no match: C
# substring tests instead of ~40 case-insensitive alternatives tried at every position (~1.6 ms a note).
_SCREEN_NEEDLES = (
    "pass", "pwd", "secret", "token", "bearer", "credential", "pin", "priv", "putty", "contrase", "cloudant",
    "cldt", "ibm", "softlayer", "hmac", "authori", "key", "://",
)  # fmt: skip
# `_SCREEN_RE`'s `[A-Za-z0-9_+=-]{20,}` on ASCII text: its bytes translated to "a" (a run character) or " "
# (any other), then a C search for 20 "a"s; the regex tries a run at every position (~40 us a note).
_RUN_TABLE = bytes(
    0x61 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_+=-") else 0x20 for b in range(256)
)
_RUN = b"a" * 20
# `_SCREEN_RE` without its case folding, for lower-cased ASCII text (the same answer, ~3x faster).
_SCREEN_LOWER_RE = re.compile(_SCREEN_RE.pattern)


def _runs(text: str) -> bytes:
    """An ASCII `text` with each character as "a" (may be part of a long run) or " " (may not)."""
    return text.encode("ascii").translate(_RUN_TABLE)


def _may_match(text: str) -> bool:
    """False only where `_SCREEN_RE` cannot match `text`: an ASCII text with none of its needles."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(needle in low for needle in _SCREEN_NEEDLES) or _RUN in _runs(text)


def _screen(line: str) -> bool:
    """Whether `_SCREEN_RE` matches somewhere in `line` (its answer exactly, faster on ASCII text)."""
    if not line.isascii():
        return _SCREEN_RE.search(line) is not None
    return _may_match(line) and _SCREEN_LOWER_RE.search(line.lower()) is not None


def _needle_lines(text: str, lines: list[str]) -> list[int]:
    """The 0-based numbers of the lines of the ASCII `text` (split into `lines`) on which `_may_match` is
    true, found over the whole text at once: a C search per needle, not every needle tried on every line."""
    low = text.lower()  # ASCII: the same length, and each line's `lower()` is its slice of this one
    found: list[int] = []  # where needles and long runs start (none holds a "\n": each lies in one line)
    for needle in _SCREEN_NEEDLES:
        at = low.find(needle)
        while at >= 0:
            found.append(at)
            at = low.find(needle, at + 1)
    runs = _runs(text)
    at = runs.find(_RUN)
    while at >= 0:
        found.append(at)
        at = runs.find(_RUN, at + len(_RUN))
    if not found:
        return []
    ends = list(itertools.accumulate(len(line) + 1 for line in lines))  # where each next line starts
    return sorted({bisect.bisect_right(ends, at) for at in found})


def find_secrets(text: str, *, screened: bool = False) -> list[SecretHit]:
    """Every line of `text` that looks like it holds a secret: at most one hit per line, in line order.

    `screened`: skip the lines no detector can match (`_SCREEN_RE`); the same hits, for scans of a whole
    memory, where most lines are prose (on ASCII text, only the lines with a needle are looked at)."""
    lines = text.split("\n")
    numbers: Iterable[int] = range(len(lines))
    if screened and text.isascii():
        numbers = _needle_lines(text, lines)
    hits: list[SecretHit] = []
    for i in numbers:
        line = lines[i].rstrip("\r")
        if not line.strip() or (screened and not _screen(line)):
            continue
        kind = _line_kind(line)
        if kind is not None:
            hits.append(SecretHit(i + 1, kind))
    return hits


def _lines_phrase(numbers: list[int]) -> str:
    shown = [str(n) for n in numbers[:5]]
    rest = len(numbers) - len(shown)
    if rest:
        return f"lines {', '.join(shown)} and {rest} more"
    return f"lines {', '.join(shown[:-1])} and {shown[-1]}"


def check_no_secrets(text: str, path: str) -> None:
    """Raise `SecretFound` (one sentence) if `text` looks like it holds a secret."""
    hits = find_secrets(text)
    if not hits:
        return
    kinds = ", ".join(dict.fromkeys(hit.kind for hit in hits))
    tail = "memory is plain text and must not hold secrets."
    if len(hits) == 1:
        raise SecretFound(
            f"Refusing to save {path}: line {hits[0].line_no} looks like a secret ({kinds}); {tail}"
        )
    lines = _lines_phrase([hit.line_no for hit in hits])
    raise SecretFound(f"Refusing to save {path}: {lines} look like secrets ({kinds}); {tail}")


REDACTED = "[redacted]"
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/.~-")


def _replace_token(line: str, value: str, mask: str) -> str:
    """`line` with each `value` replaced, together with the token characters around it (a detector may
    name only a token's prefix, or one part of a JWT)."""
    start = line.find(value)
    while start >= 0:
        a, b = start, start + len(value)
        while a > 0 and line[a - 1] in _TOKEN_CHARS:
            a -= 1
        while b < len(line) and line[b] in _TOKEN_CHARS:
            b += 1
        line = line[:a] + mask + line[b:]
        start = line.find(value, a + len(mask))
    return line


def redact_secrets(text: str, mask: str = REDACTED) -> str:
    """`text` with every secret `find_secrets` sees replaced by `mask`, and nothing else changed: a
    private key's body becomes one such line; a line still flagged after its values are replaced is
    replaced whole (indentation kept)."""
    lines = text.split("\n")
    for hit in reversed(find_secrets(text)):  # from the end: a key's body folds into one line
        i = hit.line_no - 1
        if hit.kind == "private key":
            end = next((j for j in range(i + 1, min(len(lines), i + 500)) if "-----END" in lines[j]), None)
            if end is not None and end > i + 1:
                lines[i + 1 : end] = [mask]
        line = lines[i]
        for value in sorted(set(_line_values(line)), key=len, reverse=True):
            line = _replace_token(line, value, mask)
        if _line_kind(line.rstrip("\r")) is not None:
            body = line.rstrip("\r")
            line = body[: len(body) - len(body.lstrip())] + mask + line[len(body) :]
        lines[i] = line
    return "\n".join(lines)
