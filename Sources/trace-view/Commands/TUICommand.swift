import TraceInputs
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
            was however it ends. A trace is shown while it is read ("reading" in the header; its
            first 1,000 requests and tasks so far; a CTF trace or JSON Lines once its temporary
            copy is made, "copying" until then), then whole. Without a terminal (a pipe) it
            prints the four panes once, as plain text, COLUMNS wide (160 without COLUMNS).
            """)

    static func run(_ args: Arguments) throws {
        let title = "trace-view tui " + (try TraceSource.name(of: args))
        if TerminalSession.available {
            // On a terminal: the screen comes at once and fills while the trace is read on a
            // thread of its own (BrowserFeed), in bounded memory whatever the trace's length.
            let feed = BrowserFeed(source: try TraceSource(args, access: .seeksIndexingAlong))
            return try browse(feed: feed, title: title, ascii: args.flag("ascii"), palette: try palette(args))
        }
        // Printed whole: read as a stream (the first pass, then a second for the largest parts
        // of the slowest requests), never held.
        let source = try TraceSource(args, access: .passes)
        var data = try TraceOverview(reading: source.pass, hosts: { source.hosts })
        let counts = source.counts ?? TraceCounts()
        data.lost = counts.overwritten + counts.discarded
        let notes = source.notes
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
        let empty = BrowserLoop.Frame(data: OverviewReading().data(hosts: [:]), status: "reading", loading: true)
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
