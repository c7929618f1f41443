import Foundation
import TraceInputs
import TransduceTrace

/// `trace-view export`: Perfetto's native format, Chrome Trace JSON, OpenTelemetry (OTLP JSON),
/// Mermaid, PlantUML, SVG, JSON Lines or CSV.
enum ExportCommand: Subcommand {
    static let formats = ExportFormat.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        name: "export",
        abstract:
            "Perfetto's native format, Chrome Trace JSON, OpenTelemetry spans, Mermaid, PlantUML, SVG, JSON Lines or CSV tables",
        options: [
            OptionSpec("format", formats.joined(separator: "|"), "The output format", required: true),
            OptionSpec("output", "FILE", "Write to FILE instead of standard output (atomically where FILE is a regular file)"),
            OptionSpec(
                "otlp-endpoint", "URL",
                "otlp: POST the spans to an OpenTelemetry collector (OTLP/HTTP; http(s)://HOST:PORT gets /v1/traces)"),
            .flag(
                "send", "otlp: POST the spans to the collector the OTEL_EXPORTER_OTLP_* variables name (localhost:4318 without)"),
            OptionSpec("otlp-protocol", "http/protobuf|http/json", "Sending: the body's encoding (http/protobuf)"),
            OptionSpec("compression", "gzip|none", "Sending: compress each body (none)"),
            OptionSpec("otlp-headers", "K=V,...", "Sending: extra request headers, percent-encoded values (authentication)"),
            OptionSpec("certificate", "FILE", "Sending: the CA certificates (PEM) to trust for https instead of the system's"),
            OptionSpec("timeout", "SECONDS", "Sending: the most each batch may take, retries included (10)"),
            OptionSpec("resume-at", "N", "Sending: skip the first N requests (what a stopped export said it had sent)"),
            .flag("allow-partial", "Sending: exit 0 when the collector rejects some spans (a partial success)"),
        ] + OptionSpec.selection + [
            OptionSpec("request", "ID", "mermaid, plantuml, svg: only dispatch #ID's lifecycle (as sequence --request)"),
            OptionSpec("from", "T", "mermaid, plantuml, svg: start of the time window (as sequence --from)"),
            OptionSpec("to", "T", "mermaid, plantuml, svg: end of the time window"),
            OptionSpec("table", ExportTables.names.joined(separator: "|"), "csv: which table (see COLUMNS below)"),
            .flag("all-runtimes", "chrome, perfetto: tracks of its own for every runtime, however many"),
        ],
        discussion: """
            perfetto: Perfetto's native protobuf format (TrackEvent), for ui.perfetto.dev and its
            trace processor, which load it where JSON is too large (past about 10M events): the
            layout chrome has below, with each process's runtimes as tracks under it and each
            runtime's tracks under that, names interned, times the trace's own (CLOCK_MONOTONIC),
            about 27 bytes an event; each process is its OS pid, and a dispatch made from outside
            a runtime's tasks sits on its OS thread (the vtid on LTTng input, the recording
            thread in a ring dump), so the trace processor's process and thread tables hold the
            system's ids. Binary: needs --output, or standard output not a terminal.
            otlp: OpenTelemetry spans as OTLP JSON, one TracesData a line (the Collector's file
            exporter's shape; each line is also an OTLP/HTTP body for /v1/traces): a trace per
            resumed request, its root span (kind INTERNAL) from dispatch to resume, under it a
            span per part of its latency as slow splits it (gate wait, each cycle's work and
            actions, the tasks that carried it, re-entry waits, resume), which tile it exactly; a
            wait's span has an event per cycle that held the gate; a part in a task another
            request started links to that request (transduce.link: joined, replaced, carried);
            an error resume sets ERROR. Times are Unix times: the trace's wall-clock anchor where
            it has one (a ring dump's; an LTTng trace's own clock offset, as babeltrace2
            --clock-seconds reads it), else this machine's clocks now (with a warning). The trace is
            read in two passes (more where requests waited very long: a pass for each batch of
            them whose runtimes' events fit in 500,000; and where more than 50,000 runtimes had
            requests waiting at once, those passes for each group of them, each group's read
            from a temporary copy of its events: room for a copy of the trace in TMPDIR) in
            memory that follows what is open, not the trace (anything but a trace file through a temporary copy, see TRACE in
            trace-view --help). Requests come in the order of their resumes.
            Sending (--otlp-endpoint URL, or --send): each batch of up to 256 requests' spans is
            POSTed to the collector as OTLP/HTTP, over libcurl: http/protobuf (or http/json),
            gzip if asked, https with the system's CA store, one kept-alive connection, proxies
            from http_proxy/https_proxy. 429, 502, 503, 504 and a failed connection are retried
            (backoff 1, 2, 4, 8, 16 s with jitter, or the collector's Retry-After; at most 6
            attempts) within --timeout seconds a batch. Settings not given as flags come from
            the OpenTelemetry variables, the TRACES_ one first: OTEL_EXPORTER_OTLP_ENDPOINT (a
            base; /v1/traces is added), _TRACES_ENDPOINT (used as it is), _PROTOCOL,
            _COMPRESSION, _HEADERS, _TIMEOUT (milliseconds), _CERTIFICATE, _CLIENT_CERTIFICATE,
            _CLIENT_KEY. A batch the collector does not take stops the export with exit status 76,
            saying how many requests it had taken and the --resume-at that sends the rest; spans
            it took but rejected (an OTLP partial success) make it exit 77, unless
            --allow-partial.
            chrome: Chrome Trace Event JSON for Perfetto UI: a process per OS process (pid and
            host), each runtime's tracks grouped and named with it: cycles on its gate track, a
            queue-depth counter, tasks on reused lanes, requests on tracks named by their label,
            one flow per request, forward in time, through every cycle and task that carried it;
            every time from the trace's timestamps; absolute times and threads in each event's args.
            chrome, perfetto: the first \(RuntimeLanes.maxWhole) runtimes the trace names have
            tracks of their own; the runtimes after them (a service with a runtime per connection
            has thousands, which a timeline UI cannot lay out) share one group, "other runtimes",
            in a process of its own: their cycles on reused gate lanes (as many as ran at once),
            tasks and requests on reused lanes, one queue-depth counter of their queues added up.
            Every slice, moment and flow is still there, each naming its runtime in its args;
            --all-runtimes gives every runtime its tracks.
            mermaid, plantuml: sequence diagrams (--request and --from/--to narrow them; a Mermaid
            diagram over Mermaid's default 50,000 characters is written with a warning), written
            as they are drawn; a message's text over 200 characters is cut, ending with …
            svg: the same sequence diagram as a standalone SVG drawn by trace-view itself (no
            renderer needed): text as text, colours for light and dark schemes and colour-blind
            readers, a dash per kind of message besides its hue.
            jsonl: one event per line, never longer than the 1 MiB a JSON Lines reader reads (an
            event whose escaped texts would make it longer has them cut to 32 KiB, with a
            warning).
            csv: one table (RFC 4180 quoting, a header line, LF line ends like every other output)
            for pandas, DuckDB or a spreadsheet: requests (one row per resumed awaited request
            with its latency split by part, as slow), tasks (as tasks), cycles or events; written
            as the trace is read, in
            memory that follows what is open, not the trace (requests reads the trace in
            passes as otlp does).
            Writes to standard output unless --output is given.
            """,
        epilogue: ExportTables.help)

    static func run(_ args: Arguments) throws {
        let format = try ExportFormat.named(args.options["format"])
        let sending = try format.check(args)
        let source = try TraceSource(args, access: format.access(args))
        let output = try OutputFile(path: args.options["output"])
        try format.write(source, args, sending: sending, to: output)
        try output.close()
        try finish(notes: source.notes)
    }
}
