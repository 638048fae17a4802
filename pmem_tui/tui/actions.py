"""Every key of the app in one table: the bindings, the key bar's choice, the help screen, the palette and
the README.

An `Action` (`action_types.py`) names its binding (`id`), its key(s) as Textual spells them, the key bar
label and its help text; where the key bar offers it comes from the pane table (`panes.PaneSpec.keys`).
Every widget builds its `BINDINGS` from this table (checked by a test, and so is the README's key table:
`python -m pmem_tui.tui.key_docs` prints it). A user's `config.toml` remaps keys by binding id
(`tui/config.py`); the help screen, the palette and every sentence that names a key ("Press n to write...":
`keys.key_for`) then write the user's keys. A text of the table names another action's keys as
`{action_id}` (`key_docs.with_keys`).
"""

from __future__ import annotations

from functools import cache

from textual.binding import BindingType

from pmem_tui.tui import keys
from pmem_tui.tui.action_types import Action, Section, bindings, scroll_of
from pmem_tui.tui.panes import PANES

# Keys that move the focus are priority bindings: they run when the key is read, so the keys typed right
# behind them already reach the new focus, in order (see `tui/focus.py`).
MAIN: tuple[Action, ...] = (
    *(  # `1`, `2`...: the panes in the table's order
        Action(f"pane.{i + 1}", str(i + 1), f"show_pane({i})", pane.title, "", show=False, priority=True)
        for i, pane in enumerate(PANES)
    ),
    Action("pane.next", "tab", "cycle_pane(1)", "Next pane", "", show=False, priority=True),
    Action("pane.prev", "shift+tab", "cycle_pane(-1)", "Previous pane", "", show=False, priority=True),
    Action(
        "filter",
        "slash",
        "filter",
        "Filter",
        "filter the pane: exact and word-start matches first, matched letters highlighted; "
        "{filter.submit}: first match; {filter.clear}: clear",
        priority=True,
        command="Filter pane",
    ),
    Action(
        "archive",
        "a",
        "app.archive",
        "Archive",
        "archive the marked active files, or the one under the cursor: asks for the reason, then shows the "
        "preview",
        command="Archive selected",
    ),
    Action(
        "delete",
        "d",
        "app.delete",
        "Delete",
        "delete the marked archived files, or the one under the cursor, to the trash; on an active file: "
        "explains, offers the archive",
        command="Delete selected",
    ),
    Action(
        "recover",
        "r",
        "app.recover",
        "Recover",
        "recover the marked archived or trashed files, or the one under the cursor; asks for an index line "
        "if the record has none",
        command="Recover selected",
    ),
    Action(
        "edit",
        "e",
        "app.edit",
        "Edit",
        "edit a copy of the selected file (or its kept draft) in your editor, then the save preview",
        command="Edit selected",
    ),
    Action(
        "new",
        "n",
        "app.new_file",
        "New",
        "new memory file: path and index line, editor, then the save preview",
        command="New memory file",
    ),
    Action(
        "purge",
        "P",
        "app.purge",
        "Purge",
        "purge expired trash, with its own preview listing every item",
        command="Purge expired trash",
    ),
    Action(
        "upgrade",
        "U",
        "app.upgrade",
        "Upgrade",
        "upgrade the lifecycle structure (create the missing folders and archive index only); "
        "offered while the structure is incomplete",
        command="Upgrade lifecycle structure",
    ),
    Action(
        "doctor",
        "D",
        "app.doctor",
        "Doctor",
        "doctor: finish or undo an interrupted action; offered when one is found",
        command="Doctor",
    ),
    Action(
        "undo",
        "ctrl+z",
        "app.undo",
        "Undo",
        "undo the session's last action by planning its inverse, with its preview; again: the one before",
        command="Undo last action",
    ),
    Action("redo", "ctrl+y", "app.redo", "Redo", "redo what {undo} undid, with its preview", command="Redo"),
    Action("health", "H", "app.health", "Health", "health review", command="Health review"),
    Action(
        "search",
        "ctrl+f",
        "app.search",
        "Search",
        'search the text of every memory file: words, "phrases", path:GLOB, in:archive / in:trash',
        show=False,
        priority=True,  # also from the filter's input (whose own ctrl+f deletes a word)
        command="Search file contents",
    ),
    Action(
        "problems",
        "exclamation_mark",
        "problems",
        "Problems",
        "show only the rows with a problem (orphan, dead route, invalid summary); again: every row",
        command="Show problems only",
    ),
    Action(
        "preview.focus",
        "p",
        "focus_preview",
        "Preview",
        "focus the preview (scroll it with the movement keys; tab goes back)",
        priority=True,
        command="Focus preview",
    ),
    Action(
        "history",
        "v",
        "app.file_history",
        "History",
        "the selected file's history: its versions, a diff between any two, restore one through the save "
        "preview",
        command="File history",
    ),
    Action("quit", "q", "app.quit", "Quit", "quit"),
)

# Bound by the app itself (every screen; the palette's key is Textual's own), and by the widgets named in the
# comments.
GLOBAL: tuple[Action, ...] = (
    Action(
        "help",
        "question_mark",
        "help",
        "Help",
        "this help (generated from the key table)",
        command="Help: keys",
    ),
    # Textual's own binding (`App.COMMAND_PALETTE_BINDING`): documented here, not remapped.
    Action(
        "palette",
        "",
        "command_palette",
        "palette",
        "command palette: every action by name",
        keys_shown="ctrl+p",
    ),
)
LIST: tuple[Action, ...] = (  # `MemoryList` (`PreviewView`'s are `PREVIEW`)
    Action("list.up", "up,k", "cursor_up", "Up", "move up (in the preview: scroll)", show=False),
    Action("list.down", "down,j", "cursor_down", "Down", "move down", show=False),
    Action("list.page_up", "pageup", "page_up", "Page up", "a page up", show=False),
    Action("list.page_down", "pagedown", "page_down", "Page down", "a page down", show=False),
    Action("list.first", "home,g", "first", "First", "first row", show=False),
    Action("list.last", "end,G", "last", "Last", "last row", show=False),
)
MARK = Action(
    "mark",
    "space",
    "toggle_mark",
    "Mark",
    "mark several rows (the tab shows how many); {archive} / {delete} / {recover} then plan them together, "
    "even those the filter hides",
)
CLEAR = Action(  # `PaneView`
    "pane.clear_filter",
    "escape",
    "clear_filter",
    "Clear filter",
    "clear the filter, then the marks",
    show=False,
)
LIST_ALL: tuple[Action, ...] = (*LIST, MARK, CLEAR)
FILTER: tuple[Action, ...] = (  # `FilterInput`: priority, so the keys typed behind them reach the list
    Action("filter.clear", "escape", "clear_filter", "Clear filter", "", show=False, priority=True),
    Action("filter.submit", "enter", "to_matches", "First match", "", show=False, priority=True),
)
# `PreviewView` and `PlanModal`'s preview: the list's moves, the same keys, scroll (documented by `move`).
PREVIEW: tuple[Action, ...] = tuple(map(scroll_of, LIST))
SCREENS: tuple[Action, ...] = (  # the small screens' own keys (each says them on screen)
    Action("help.close", "escape,q,question_mark", "close", "Close", ""),  # `HelpScreen`
    Action("new.cancel", "escape", "cancel", "Cancel", ""),  # `NewFileModal`
    Action("welcome.first_save", "n", "first_save", "First save", ""),  # `WelcomeScreen`
    Action("small.quit", "q", "app.quit", "Quit", ""),  # `TooSmallScreen`
    # The app's own keys would open a screen that has no room there.
    Action("small.ignore", "question_mark,ctrl+p", "ignore", "", "", show=False),
)
PANES_KEYS: tuple[Action, ...] = (  # documentation of the `1`, `2`... and tab bindings above, in one row
    Action(
        "panes",
        "",
        "",
        "",
        "switch pane: "
        + ", ".join(p.title for p in PANES)
        + "".join(f" ({i + 1}, {p.only_when})" for i, p in enumerate(PANES) if p.only_when),
        keys_shown=" ".join(f"{{pane.{i + 1}}}" for i in range(len(PANES))) + ", {pane.next} / {pane.prev}",
    ),
)
MODAL: tuple[Action, ...] = (  # `PlanModal`
    Action(
        "plan.submit",
        "",
        "",
        "",
        "build the preview from the reason or index line you typed",
        keys_shown="enter (in the input)",
    ),
    Action("plan.confirm", "y", "confirm", "Confirm", "confirm: only now does anything change on disk"),
    # Offered once the preview is stale (`PlanModal.offers`): the focus is then off the input, `y` a key.
    Action("plan.again", "enter", "again", "Preview again", "after a change on disk: preview again as typed"),
    Action(
        "plan.cancel",
        "n",
        "cancel",
        "Cancel",
        "cancel: nothing changes",
        show=False,
        keys_shown="{plan.cancel} / {plan.escape}",
    ),
    Action("plan.escape", "escape", "cancel", "Cancel", "", key_display="{plan.cancel}/esc"),  # with `n`
    # Whatever has the focus (a button, the input): a preview taller than the dialog is read to its end.
    *(scroll_of(move, "plan", "scroll_preview('{}')") for move in LIST),
    Action(
        "plan.scroll",
        "",
        "",
        "",
        "scroll the preview (a long one ends with the paths created for pmem-tui itself)",
        keys_shown="{plan.down}, {plan.up}, {plan.page_up}, {plan.page_down}, {plan.top}, {plan.bottom}",
    ),
)
HEALTH: tuple[Action, ...] = (
    # `f` first: at 80 columns the bar ends after four keys, and the fix is the review's own action.
    Action(
        "health.fix",
        "f",
        "fix",
        "Fix",
        "apply the fix: an index line added, dropped or rerouted, or a secret redacted, through its preview",
    ),
    # Not `k`: that moves up, here as everywhere else.
    Action("health.keep", "K", "keep", "Keep", "keep: dismiss the proposal for this session"),
    Action("health.archive", "a", "archive", "Archive", "archive the file, through its preview"),
    Action(
        "health.delete",
        "d",
        "delete",
        "Archive+delete",
        "archive, then delete to the trash, each through its preview",
    ),
    Action("health.edit", "e", "edit", "Edit", "edit the file in $EDITOR, then the save preview"),
    Action("health.back", "escape,H", "back", "Back", "back to the panes"),
    Action(
        "health.mark",
        "",
        "",
        "",
        "mark several proposals; {health.keep} / {health.archive} / {health.delete} then take them together "
        "(each keeps its own reason), {health.fix} one after the other",
        keys_shown="{mark}",
    ),
    Action(
        "health.upgrade",
        "U",
        "upgrade",
        "Upgrade",
        "upgrade, when the review is blocked by an incomplete lifecycle structure",
    ),
    Action("health.purge", "P", "purge", "Purge expired", "purge expired trash (its own confirmation)"),
    Action("health.quit", "q", "app.quit", "Quit", "quit"),
)
SEARCH: tuple[Action, ...] = (  # `SearchScreen`: typing goes to its input; the results take the keys below
    Action("search.open", "enter", "open", "Open", "open the result in its pane, the preview at the match"),
    Action(
        "search.results",
        "down,tab",
        "to_results",
        "Results",
        "from the query to the results (j / k, ↓ / ↑ move; / or shift+tab: back to the query)",
        keys_shown="↓ / tab",
    ),
    Action("search.query", "slash,shift+tab", "to_query", "Query", "", show=False),
    Action("search.down", "j", "cursor_down", "Down", "", show=False),
    Action("search.up", "k", "cursor_up", "Up", "", show=False),
    Action("search.archive", "a", "archive", "Archive", "archive the result's file, through its preview"),
    Action(
        "search.delete",
        "d",
        "delete",
        "Delete",
        "delete to the trash (an active file: its archive preview first, as in the panes)",
    ),
    Action("search.recover", "r", "recover", "Recover", "recover the result's archived or trashed file"),
    Action("search.close", "escape", "close", "Close", "back to the panes"),
)
EPICS_MOVE = Action(
    "epics.move",
    "",
    "",
    "",
    "move between epics (as in the other panes)",
    keys_shown="{epics.down} / {epics.up}, ↓ / ↑, {epics.first} / {epics.last}",  # the arrows: DataTable's
)
EPIC_TABLE: tuple[Action, ...] = (  # `EpicTable`
    Action(
        "epics.toggle",
        "enter",
        "select_cursor",
        "Full body/line",
        "toggle the epic between what loads and its full body (read for display only)",
    ),
    # The other panes' movement keys, so moving does not depend on which pane has the focus.
    Action("epics.down", "j", "cursor_down", "Down", "", show=False),  # documented by `epics.move`
    Action("epics.up", "k", "cursor_up", "Up", "", show=False),
    Action("epics.first", "g", "scroll_top", "First", "", show=False),
    Action("epics.last", "G", "scroll_bottom", "Last", "", show=False),
)
EPICS_VIEW: tuple[Action, ...] = (  # `EpicsView`
    Action("epics.reload", "ctrl+r", "reload", "Reload", "reload the project's permanent memory"),
)
EPICS: tuple[Action, ...] = (EPICS_MOVE, *EPIC_TABLE, *EPICS_VIEW)
CHANGES: tuple[Action, ...] = (  # `ChangesView` (its rows: `LIST`; `v` is the main screen's)
    Action(
        "changes.reviewed",
        "R",
        "mark_reviewed",
        "Reviewed",
        "mark what is shown reviewed: the pane then lists only what changes after it (writes only "
        ".pmem/history; with no history yet, it starts one: the memory as it is, its first version, in a "
        ".pmem/ that git ignores)",
    ),
)
HISTORY_VIEW: tuple[Action, ...] = (  # `HistoryScreen` (its list: `LIST`, space marks one version)
    Action(
        "history.mark",
        "",
        "",
        "",
        "mark one version: the diff is then between it and the version under the cursor (without a mark: "
        "the version and the file now); again: unmark",
        keys_shown="space",
    ),
    Action(
        "history.restore", "r", "restore", "Restore", "restore the selected version, through the save preview"
    ),
    Action("history.back", "escape,v", "back", "Back", "back to the panes"),
    Action("history.quit", "q", "app.quit", "Quit", "quit"),
)

MOVE = Action(
    "move",
    "",
    "",
    "",
    "move in the list (or scroll the preview)",
    keys_shown="{list.down}, {list.up}, {list.first}, {list.last}, {list.page_up}, {list.page_down}",
)


# What the help screen and the README show, in order (the pane switches' five bindings read as one row).
def _documented(*actions: Action) -> tuple[Action, ...]:
    return tuple(a for a in actions if a.help)


HELP: tuple[Section, ...] = (
    Section("Main screen", _documented(MOVE, *PANES_KEYS, *MAIN, MARK, CLEAR, *GLOBAL)),
    Section("Preview modal", _documented(*MODAL)),
    Section("Health review", _documented(*HEALTH)),
    Section("Search", _documented(*SEARCH)),
    Section("Epics pane", _documented(*EPICS)),
    Section("Changes pane", _documented(*CHANGES)),
    Section("History view", _documented(*HISTORY_VIEW)),
)

# Always in the key bar, at its right end, whatever the width (by action: each screen binds its own quit).
PINNED = ("help", "app.help", "quit", "app.quit")


ALL: tuple[Action, ...] = (
    *MAIN,
    *GLOBAL,
    *LIST_ALL,
    *FILTER,
    *PREVIEW,
    *SCREENS,
    *MODAL,
    *HEALTH,
    *SEARCH,
    *EPICS,
    *CHANGES,
    *HISTORY_VIEW,
)
keys.set_table({a.id: a.key for a in ALL if a.key})  # for the sentences that name a key


# The actions whose keys can run on the same screen: a user's key is not taken twice in one (`config.py`).
SCOPES: tuple[tuple[Action, ...], ...] = (
    (*MAIN, *GLOBAL, *LIST, MARK, CLEAR),  # a pane of rows
    (*MAIN, *GLOBAL, *PREVIEW),  # the preview
    (*MAIN, *GLOBAL, *EPIC_TABLE, *EPICS_VIEW),  # the Epics pane
    (*HEALTH, *GLOBAL, *LIST, MARK),  # the health review and its list
    (*MODAL, *GLOBAL),
    (*SEARCH, *GLOBAL),
    (*MAIN, *GLOBAL, *LIST, *CHANGES),  # the Changes pane
    (*HISTORY_VIEW, *GLOBAL, *LIST, MARK),  # the History view and its list
)


@cache
def by_id() -> dict[str, Action]:
    return {a.id: a for a in ALL}


def bindings_of(*ids: str) -> list[BindingType]:
    """The bindings of these actions of the table, in this order."""
    table = by_id()
    return bindings(tuple(table[i] for i in ids))
