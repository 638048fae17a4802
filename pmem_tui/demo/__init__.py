"""Sample data for `pmem-tui --demo`, written directly (no lifecycle action): `memory` builds a memory root,
`epics` a project's permanent memory for the Epics pane."""
