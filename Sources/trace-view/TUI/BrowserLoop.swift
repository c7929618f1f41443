import Transduce
import TransduceTrace

/// The terminal UI's shell: reads keys into ``BrowserState``, draws ``BrowserScreen`` and writes
/// only the lines that changed, follows the terminal's size, and in a live view takes a new
/// ``Frame`` every `refresh` seconds unless the user paused it or reads a diagram.
///
/// Runs on the calling thread, on the terminal ``TerminalSession/begin()`` entered; the caller
/// restores it.
enum BrowserLoop {
    /// What the screen shows: the data, and a live view's state for the header.
    struct Frame {
        var data: TraceOverview
        /// "live", "ended", … ("" for a recorded trace).
        var status: String
        /// Aggregates over a live stream's every event, for the rule under the header.
        var totals = ""
        /// Nothing is left to show (a live view whose every reader failed before any event): the
        /// loop ends as if q were pressed.
        var closes = false
        /// More of the trace is still being read (``BrowserFeed``): the loop asks for the next
        /// frame as a live view's does, until one is not loading.
        var loading = false
    }

    /// Runs until q, Ctrl-C or the end of the terminal's input. `update` is asked for a new frame
    /// (`nil`: nothing new) every `refresh` seconds when `live` or while the frame is loading; a
    /// recorded trace's frame changes no more once it is read.
    /// `palette`: the terminal's colours (`nil`: none).
    static func run(
        title: String, ascii: Bool, palette: RenderOptions? = nil, frame first: Frame, live: Bool, refresh: Double,
        update: () -> Frame?
    ) {
        var frame = first
        var state = BrowserState()
        state.live = live
        var previous: [String] = []
        var size = TerminalSession.size
        var ended = false
        var nextRefresh = MonotonicClock.now() + UInt64(refresh * 1e9)
        while true {
            var screen = BrowserScreen(data: frame.data, title: title, width: size.columns, height: size.rows, ascii: ascii)
            screen.status = state.paused ? "paused (p resumes)" : frame.status
            screen.totals = frame.totals
            screen.palette = palette
            state.counts = screen.counts(state)
            state.sortable = screen.sortableColumns
            state.jumps = state.pane == .warnings ? screen.jumps(state) : []
            clampSelection(&state)
            draw(screen.painted(state), over: &previous, colour: palette != nil)
            var key: Key?
            var refreshed = false
            while key == nil && !ended && !refreshed {
                key = TerminalSession.readKey(timeout: 100, ended: &ended)
                if TerminalSession.resized.exchange(false, ordering: .relaxed) {
                    size = TerminalSession.size
                    previous = []  // everything moves: draw it all
                    break
                }
                // A diagram is read as it was opened; a paused view stays as it is.
                guard live || frame.loading, key == nil, !state.paused, state.mode == .browse, MonotonicClock.now() >= nextRefresh
                else {
                    continue
                }
                nextRefresh = MonotonicClock.now() + UInt64(refresh * 1e9)
                if let next = update() {
                    // A live view's selection follows its request, task or gate to where it
                    // moved; a file still being read reorders its rows as it is read, and the
                    // selection stays on its row.
                    let before = screen
                    let selected = BrowserState.Pane.allCases.map { pane in
                        live ? state.selected[pane].flatMap { i in before.rowKeys(pane, state).dropFirst(i).first } : nil
                    }
                    frame = next
                    let after = BrowserScreen(data: frame.data, title: title, width: 1, height: 1, ascii: ascii)
                    for (pane, key) in zip(BrowserState.Pane.allCases, selected) {
                        if let key, let moved = after.rowKeys(pane, state).firstIndex(of: key) { state.selected[pane] = moved }
                    }
                    refreshed = true
                }
            }
            if ended || frame.closes { break }
            guard let key else { continue }
            if state.handle(key, rows: screen.bodyRows) == .quit { break }
        }
    }

    /// Keeps each pane's selection on a row when a live view's rows became fewer.
    private static func clampSelection(_ state: inout BrowserState) {
        for (pane, count) in state.counts where (state.selected[pane] ?? 0) >= count {
            state.selected[pane] = max(0, count - 1)
        }
    }

    /// Writes the lines that differ from `previous` (all of them when it is empty), each at its
    /// row, in one write; with `colour`, the screen's own colour sequences are kept (the trace's
    /// texts in them were escaped when the screen was drawn).
    static func draw(_ lines: [String], over previous: inout [String], colour: Bool = false) {
        var out = previous.isEmpty ? "\u{1B}[2J" : ""
        for (row, line) in lines.enumerated() where row >= previous.count || previous[row] != line {
            out += "\u{1B}[\(row + 1);1H" + escapingControls(line, keepingColour: colour)
        }
        guard !out.isEmpty else { return }
        TerminalSession.emit(Array(out.utf8))
        previous = lines
    }
}
