import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trace-view tui`: browse a trace in the terminal: requests, tasks and the gate, and any
/// request's sequence diagram. The state is ``BrowserState`` (a pure value), the drawing
/// ``BrowserScreen``, the shell that reads keys and redraws ``BrowserLoop``.
enum TUICommand: Subcommand {
    static let spec = CommandSpec(
        name: "tui", abstract: "Browse a trace in the terminal: requests, tasks, the gate, diagrams",
        options: OptionSpec.selection + [OptionSpec.ascii, OptionSpec.noColor, OptionSpec.color],
        discussion: """
            Four panes: the awaited requests, slowest first, with their latency and its largest
            part; the tasks with their policy, run time and fate; each runtime's gate with its
            cycles, deepest queue, wait p99, longest hold and the queue depth over the trace as a
            sparkline (the first \(RuntimeLanes.maxWhole) runtimes a row each, the others one
            row together); the warnings of the task and contention reports. From 160 columns (or
            36 rows) the selected row's detail is shown beside (or below) the list. Keys: up/down
            or j/k move, Tab switches panes, Enter opens the selected request's sequence diagram
            (scroll it with up/down, PgUp/PgDn; Esc or q closes it), a task's or a gate's detail
            on the whole screen, or the row a warning names, s sorts the pane by its next column
            (S reverses), / filters by label, ? shows the keys,
            q or Ctrl-C quits. In the terminal's colours (16, 256 or 24-bit, as TERM and COLORTERM
            say): the focused pane and the selection in reverse video, failures and warnings in
            red, work in progress in yellow, diagrams as sequence draws them; none with NO_COLOR,
            TERM=dumb or --no-color. It follows the terminal's size, and puts the terminal back as it
            was however it ends. A trace file is shown while it is read ("reading" in the header;
            its first 1,000 requests and tasks so far), then whole. Without a terminal (a pipe) it
            prints the four panes once, as plain text, COLUMNS wide (160 without COLUMNS).
            """)

    static func run(_ args: Arguments) throws {
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        let allProcesses = args.flag("all-processes")
        let path = input.path
        let again = TraceInput.rereading(path, allProcesses: allProcesses, args: args)
        if input.rereadable, TerminalSession.available {
            // A file on a terminal: the screen comes at once and fills while the file is read on a
            // thread of its own (BrowserFeed), in bounded memory whatever the trace's length.
            let feed = BrowserFeed(
                open: { (try TraceInput(path: path, allProcesses: allProcesses), try Selection(args)) }, again: again)
            return try browse(feed: feed, title: title(input), ascii: args.flag("ascii"), palette: try palette(args))
        }
        var data: BrowserData
        let notes: [String]
        if input.rereadable {
            // A file printed whole: read as a stream (the first pass here, the second, for the
            // largest parts of the slowest requests, from the file again), never held.
            var first: (notes: [String], counts: TraceCounts?)?
            let read = { (body: (TraceEvent) -> Void) throws in
                if first == nil {
                    first = try input.forEach(progress: Progress()) { if selection.keep($0) { body($0) } }
                    try selection.check()
                } else {
                    try again(body)
                }
            }
            data = try BrowserData(reading: read, hosts: { input.hosts })
            let counts = first?.counts ?? TraceCounts()
            data.lost = counts.overwritten + counts.discarded
            notes = first?.notes ?? []
        } else {
            let trace = try input.load(progress: Progress()) { selection.keep($0) }.trace
            try selection.check()
            data = BrowserData(trace: trace)
            notes = trace.notes
        }
        let title = title(input)
        let ascii = args.flag("ascii")
        guard TerminalSession.begin() else {
            // No terminal: each pane once, as plain text.
            // COLUMNS when it is set, as every view; else wide enough for every column (a pipe
            // has no width to fit).
            let width = Terminal.askedWidth ?? 160
            var state = BrowserState()
            var lines: [String] = []
            for pane in BrowserState.Pane.allCases {
                state.pane = pane
                var screen = BrowserScreen(data: data, title: title, width: width, height: 10_000, ascii: ascii)
                screen.showsDetail = false
                state.selected[pane] = -1
                // Blank lines dropped, trailing blanks cut (byte-wise: a pane is 10,000 lines).
                lines += screen.lines(state).dropFirst(pane == .requests ? 0 : 1).filter { $0.utf8.contains { $0 != 0x20 } }
                    .dropLast().map { line in line.utf8.lastIndex { $0 != 0x20 }.map { String(line[...$0]) } ?? "" }
                lines.append("")
            }
            Terminal.print(lines)
            return try finish(notes: notes)
        }
        // A damaged input says so on the screen, and on leaving it (exit 65), as in a pipe.
        let status =
            notes.isEmpty ? "" : "damaged input: \(notes.count) note\(notes.count == 1 ? "" : "s") on exit"
        BrowserLoop.run(
            title: title, ascii: ascii, palette: try palette(args), frame: BrowserLoop.Frame(data: data, status: status),
            live: false, refresh: 1
        ) { nil }
        TerminalSession.restore()
        try finish(notes: notes)
    }

    private static func title(_ input: TraceInput) -> String {
        "trace-view tui " + (input.path.split(separator: "/").last.map(String.init) ?? input.path)
    }

    /// The screen over a file `feed` reads: frames as they come, until the user quits.
    /// The screen's colours: the terminal's (16, 256 or 24-bit, as it says), none with
    /// `NO_COLOR`, `TERM=dumb`, `--no-color` or `--color never`.
    static func palette(_ args: Arguments) throws -> RenderOptions? {
        guard try Terminal.color(args) else { return nil }
        var palette = RenderOptions(ascii: args.flag("ascii"), color: true)
        palette.depth = Terminal.colorDepth
        return palette
    }

    private static func browse(feed: BrowserFeed, title: String, ascii: Bool, palette: RenderOptions?) throws {
        guard TerminalSession.begin() else { throw CLIError("standard input is not a terminal", .usage) }
        // Drawn at once: the feed's first frame comes within BrowserFeed.interval.
        let empty = BrowserLoop.Frame(data: BrowserReading().data(hosts: [:]), status: "reading", loading: true)
        BrowserLoop.run(
            title: title, ascii: ascii, palette: palette, frame: empty, live: false, refresh: BrowserFeed.interval
        ) {
            feed.next()
        }
        TerminalSession.restore()
        if let error = feed.ending?.error { throw error }
        try finish(notes: feed.ending?.notes ?? [])
    }
}
