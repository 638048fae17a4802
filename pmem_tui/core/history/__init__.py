"""Memory history: every recorded version of every memory file, kept in a git repository stock git can read.

    <root>/.pmem/history/        a bare git repository (dulwich writes it; no `git` binary is needed)
        refs/heads/main          the newest record: one commit per recorded change set of the memory tree
        refs/pmem/reviewed       the record the person last marked reviewed (`changes --mark-reviewed`)

The modules, lowest first (each imports only those above it in this list, `tests/test_layers.py`):

* `names`      the store's paths, what is recorded (`tracked`), a path's original place (`original_path`);
* `lock`       the store's lock (one recorder or rewriter at a time): a `flock`, standard library only;
* `stat_table` the cheap "did anything change?" pass: a stat of the tree against the last record's table
               (kept in the user's cache folder, `cache.fresh` deciding), standard library only;
* `store`      the repository: made and written through the fault-tested door (`fsops.FS`): objects in a
               pack first, the ref last, so a crash at any step leaves the last complete record; a record's
               pack in one pass (`write_entries`), only the trees on a changed path built (`update_tree`);
* `record`     records the tree (`record`, `record_if_changed`), what the executor, the commands and
               `snapshot` call; a damaged store never raises: it comes back as one sentence;
* `log`        reads it back: versions of a path, a version's bytes, diffs, what changed since the review;
* `rewrite`    forget a version's content, prune old versions (a preview first), and doctor's `repair`;
* `plans`      restore a version through the save planner.

The API the fronts use (readers raise `Refused`, one sentence, for a bad version, path or a damaged store;
nothing here touches a memory file but `plan_restore`'s plan, applied by the executor):

    record.record(root, origin="seen on disk", *, title="", detail=(), fs=None, create=False, seen=None)
        -> Recorded                                       # seen: a caller's stat pass (`stat_table.Pass`)
    record.record_if_changed(root) -> Recorded            # health, the app's scan (debounced)
    record.mark_reviewed(root, fs=None) -> str | None     # the id marked, None when there is no record
    log.versions(root, path=None) -> list[Version]        # newest first; Version.to_json() is the CLI's row
    log.version_bytes(root, version, path) -> bytes
    log.diff(root, path, from_version=None, to_version=None) -> str       # a unified diff
    log.changes_since_review(root) -> list[Changed]       # newest first; Changed.to_json()
    log.records(root) -> list[Record]; log.resolve(root, version) -> str (the full id)
    plans.plan_restore(root, path, version) -> Plan       # a save plan, action "restore"
    rewrite.plan_forget(root, path, version) -> ForgetPlan; rewrite.apply_forget(root, plan) -> str
    rewrite.plan_prune(root, days) -> PrunePlan; rewrite.apply_prune(root, plan) -> str
    rewrite.check(root) -> str | None; rewrite.repair(root) -> str | None     # doctor

Layering: the package sits right below the executor (which records before and after every action) and above
the planners (restore plans a save). The executor passes its `FS`, so a test hook sees history's steps too.
"""
