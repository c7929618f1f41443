enum Help {
    static let tool = """
        trace-view: sequence diagrams, gate contention and task reports from Transduce traces

        USAGE: trace-view <command> [options] [TRACE]

        COMMANDS:
          demo         Run a built-in workload on the ring buffer and show what it recorded
          sequence     Draw the request-lifecycle sequence diagram
          contention   Gate wait and hold distributions, who held the gate, queue depth
          tasks        Every task instance: policy, run time, outcome, replaced-by, joined-by
          summary      Counts per kind, runtimes, time span, events lost by the recorder
          slow         The slowest requests, each latency split into the parts that made it
          check        Check the runtime's invariants (one cycle at a time, FIFO admission, …)
          export       Chrome Trace JSON (Perfetto), Mermaid, PlantUML or JSON Lines
          record       Run a command under an LTTng session and keep the CTF trace

        TRACE is a Transduce trace file, a JSON Lines file, or an LTTng CTF trace directory,
        told apart by content; '-' reads standard input.
        Exit status: 0 success, 1 check found broken invariants, 64 usage error, 65
        unreadable or damaged input, 66 the trace has no such runtime, process or dispatch.
        Output: colour only on a terminal and never with NO_COLOR; every line fits the width
        (--width, else COLUMNS, the terminal, or 80; 40 to 1000). Output streams as it is
        drawn; long work shows progress on standard error when that is a terminal.
        Times are from the trace's first event. Durations take units: 800ns, 250us, 5ms, 1.5s.
        Run 'trace-view <command> --help' for a command's options.
        """

    static let commands: [String: String] = [
        "demo": """
        USAGE: trace-view demo [--save FILE] [--ascii] [--width N] [--no-color]

        Runs the built-in workload (the request-lifecycle chart, a switchToLatest replacement,
        a shareable join, a uniqueRequest, callers contending with an async action that holds
        the gate) on a BaseRuntime recording to the ring buffer, then prints the chart
        request's sequence diagram and the contention report. Under an LTTng session the same
        events also reach LTTng.

        OPTIONS:
          --save FILE   Also write the trace (.jsonl for JSON Lines, else the binary format)
        """,
        "sequence": """
        USAGE: trace-view sequence [--runtime ID] [--pid PID] [--request ID] [--from T] [--to T]
                                   [--ascii] [--width N] [--no-color] TRACE

        Draws lifelines for callers, the compute gate, transduce(), the task manager and
        task instances, with times (ms from the trace's first event) and durations. Task
        lanes go to the tasks live in the rows shown; a row names a lane's new task. The chart
        of an awaited --request ends with its latency breakdown (see 'slow').

        OPTIONS:
          --runtime ID   Only this runtime (its id within its process)
          --pid PID      Only this process
          --all-processes  In a `record` trace, every process the session caught
          --request ID   Only dispatch #ID's lifecycle, whatever its style: its cycles, what
                         they cancelled, the tasks they started or joined (to their end), the
                         tasks' re-entries and requests, and its resume
          --from T       The time window: a duration from the trace's first event (5ms,
          --to T         250us; a bare number is ns), or an absolute CLOCK_MONOTONIC time
          --ascii        Pure ASCII
        """,
        "contention": """
        USAGE: trace-view contention [--runtime ID] [--pid PID] [--long-hold T] [--ascii] [--width N] TRACE

        Gate wait and hold distributions (p50, p90, p99, max, histogram), hold time by event
        and by action, the longest waits with what held the gate meanwhile, queue depth over
        time, and warnings for long holds and growing queues. Reads the trace in one pass
        with bounded memory.

        OPTIONS:
          --runtime ID     Only this runtime (its id within its process)
          --pid PID        Only this process
          --long-hold T    Threshold of the long-hold warning (default 10ms)
        """,
        "tasks": """
        USAGE: trace-view tasks [--runtime ID] [--pid PID] [--ascii] [--width N] TRACE

        Every task instance with name, policy, spawning event, run time, outcome and the task
        that replaced it or the dispatches that joined it; warnings for tasks that never
        ended and for switchToLatest churn (instances replaced again and again, none done).
        """,
        "slow": """
        USAGE: trace-view slow [--top N] [--over T] [--event LABEL] [--runtime ID] [--pid PID]
                               [--json] [--ascii] [--width N] TRACE

        The slowest awaited requests (send, request, uniqueRequest, and requests made inside
        tasks), each with its latency from dispatch to resume split along its critical path:
        the admission's wait for the gate (and which cycles held it, in actions or not), its
        cycles (transduce, actions, async actions), the tasks that carried its waiter (run,
        joined, replaced, cancelled), re-entry waits and cycles, and the resume. The parts add
        up to the latency exactly. The three slowest are broken down in full.

        OPTIONS:
          --top N        How many to list (default 10)
          --over T       Only requests that took T or more (250us, 5ms, 1.5s)
          --event LABEL  Only requests of this event
          --json         One object per request: dispatch, label, style, outcome, total_ns, and
                         parts ({name, title, ns, cycle, task, dispatch, held_by}) whose ns add
                         up to total_ns

        An app can keep such traces itself: with TRANSDUCE_SLOW=50ms (and TRANSDUCE_SLOW_DIR,
        TRANSDUCE_SLOW_EVERY) its bootstrapped recorder dumps the ring when a request is slow.
        """,
        "check": """
        USAGE: trace-view check [--runtime ID] [--pid PID] [--incomplete] [--width N] TRACE

        Checks the runtime's invariants on the trace: one cycle at a time, admissions enter
        in the order accepted, every awaited caller resumed exactly once, every task spawned
        once and ended once, nothing transduced after stop. Violations are listed with the
        events that show them, times from the trace's first event. Exits 1 when any is
        broken.

        OPTIONS:
          --incomplete   The trace is a snapshot of a live process: check only what a partial
                         trace can prove (a trace whose recorder lost events always is one)
        """,
        "summary": """
        USAGE: trace-view summary [--runtime ID] [--pid PID] [--over T] [--ascii] TRACE

        Counts per kind, runtimes and their processes, time span and events lost by the
        recorder or by LTTng; with --over T, how many requests took T or more. One pass,
        bounded memory.
        """,
        "export": """
        USAGE: trace-view export --format chrome|mermaid|plantuml|jsonl [--output FILE]
                                 [--runtime ID] [--pid PID] [--request ID] [--from T] [--to T] TRACE

        chrome: Chrome Trace Event JSON for Perfetto UI: cycles on a gate track, tasks on
        reused lanes, requests as async slices on reused slots, one flow per request through
        every cycle and task that carried it; absolute times and threads in each event's args.
        mermaid, plantuml: sequence diagrams (--request and --from/--to narrow them; a Mermaid
        diagram over Mermaid's default 50,000 characters is written with a warning).
        jsonl: one event per line. Writes to standard output unless --output is given.
        """,
        "record": """
        USAGE: trace-view record [--output DIR] -- COMMAND [ARG...]

        Runs COMMAND under an LTTng session made for it (starting lttng-sessiond when none
        answers), with transduce:* enabled and the vtid and vpid contexts, and keeps the CTF
        trace in DIR (default ./transduce-trace-<time>-<pid>; it must not exist, and two runs
        never share one). The command needs a TraceRecorder (TRANSDUCE_TRACE, or one in code);
        it runs with TRANSDUCE_LTTNG=required, so a recorder that cannot load LTTng-UST says
        why. The trace shows COMMAND's processes only (its children too): reading DIR with
        --all-processes shows everything the session caught. Ctrl-C ends the command;
        trace-view then stops the session and keeps what was recorded. The session is
        destroyed even when trace-view itself is killed, and sessions left by a killed
        trace-view are destroyed (and named) by the next record.
        Exits with the command's status; 69 when it ran but recorded no transduce event.
        """,

    ]
}
