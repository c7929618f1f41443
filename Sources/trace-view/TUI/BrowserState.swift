/// A key the terminal UI understands, decoded from the terminal's bytes.
enum Key: Equatable {
    case up, down, pageUp, pageDown, home, end, tab, enter, escape, backspace
    case character(Character)
    case interrupt
}

/// The terminal UI's state as a pure value: which pane is focused, the selection and scroll of
/// each, its sort, what is open (a request's diagram, the keys' help, the filter prompt) and the
/// label filter. ``handle(_:rows:)`` returns what the shell must do; drawing is ``BrowserScreen``'s.
struct BrowserState: Equatable {
    enum Pane: Int, CaseIterable { case requests, tasks, gate, warnings }
    /// Where Enter on a warning goes: a pane and a row of it (in its order without a filter).
    struct Jump: Equatable {
        var pane: Pane
        var row: Int
    }
    enum Mode: Equatable {
        case browse
        /// The diagram of the request at this index of the filtered requests, scrolled.
        case diagram(request: Int, scroll: Int)
        /// The selected task's or gate's detail on the whole screen, scrolled (a screen with no
        /// room for it beside or below the list still shows it).
        case detail(scroll: Int)
        case help
        /// Typing a filter; `draft` is what is typed so far.
        case filtering(draft: String)
    }
    enum Outcome: Equatable { case redraw, quit }

    var pane = Pane.requests
    var selected: [Pane: Int] = [.requests: 0, .tasks: 0, .gate: 0, .warnings: 0]
    var mode = Mode.browse
    var filter = ""
    /// A live view (its data changes while it is shown); only then does `p` pause it.
    var live = false
    /// The live view's panes are held still (the stream is still read).
    var paused = false
    /// Rows of each pane (after the filter), set by the shell before each key.
    var counts: [Pane: Int] = [:]
    /// How each pane is sorted (absent: in the data's order).
    var sort: [Pane: BrowserSort] = [:]
    /// How many columns of each pane sort, set by the shell before each key.
    var sortable: [Pane: Int] = [:]
    /// Where each row of the warnings pane jumps (`nil`: nowhere), set by the shell before each key.
    var jumps: [Jump?] = []

    /// Handles one key; `rows` is how many list rows (or diagram lines) the screen shows.
    mutating func handle(_ key: Key, rows: Int) -> Outcome {
        if key == .interrupt { return .quit }
        switch mode {
        case .help:
            if key == .character("q") { return .quit }
            mode = .browse
        case .filtering(let draft):
            switch key {
            case .enter:
                filter = draft
                mode = .browse
                selected[.requests] = 0
                selected[.tasks] = 0
            case .escape: mode = .browse
            case .backspace: mode = .filtering(draft: String(draft.dropLast()))
            case .character(let c): mode = .filtering(draft: draft + String(c))
            default: break
            }
        case .diagram(let request, let scroll):
            mode = Self.scrolled(scroll, by: key, rows: rows).map { .diagram(request: request, scroll: $0) } ?? .browse
        case .detail(let scroll):
            mode = Self.scrolled(scroll, by: key, rows: rows).map { .detail(scroll: $0) } ?? .browse
        case .browse:
            let count = counts[pane] ?? 0
            let current = selected[pane] ?? 0
            switch key {
            case .character("q"): return .quit
            case .character("?"): mode = .help
            case .character("p") where live: paused.toggle()
            case .character("/"): mode = .filtering(draft: filter)
            case .character("s"):
                // The next column, ascending; past the last, the data's own order again.
                let next = sort[pane].map { $0.column + 1 } ?? 0
                sort[pane] = next < (sortable[pane] ?? 0) ? BrowserSort(column: next, descending: false) : nil
                selected[pane] = 0
            case .character("S"):
                if let current = sort[pane] {
                    sort[pane] = BrowserSort(column: current.column, descending: !current.descending)
                    selected[pane] = 0
                }
            case .tab: pane = Pane(rawValue: (pane.rawValue + 1) % Pane.allCases.count)!
            case .down, .character("j"): selected[pane] = min(max(0, count - 1), current + 1)
            case .up, .character("k"): selected[pane] = max(0, current - 1)
            case .pageDown: selected[pane] = min(max(0, count - 1), current + max(1, rows - 1))
            case .pageUp: selected[pane] = max(0, current - max(1, rows - 1))
            case .home: selected[pane] = 0
            case .end: selected[pane] = max(0, count - 1)
            case .enter:
                if pane == .requests && count > 0 { mode = .diagram(request: current, scroll: 0) }
                if (pane == .tasks || pane == .gate) && count > 0 { mode = .detail(scroll: 0) }
                // A warning opens the row it names; the filter goes, so that the row is there.
                if pane == .warnings, jumps.indices.contains(current), let jump = jumps[current] {
                    filter = ""
                    pane = jump.pane
                    selected[jump.pane] = jump.row
                }
            default: break
            }
        }
        return .redraw
    }

    /// Where a key moves a page of `rows` lines scrolled by `scroll` (nil: the key closes it).
    static func scrolled(_ scroll: Int, by key: Key, rows: Int) -> Int? {
        switch key {
        case .character("q"), .escape, .enter: nil
        case .down, .character("j"): scroll + 1
        case .up, .character("k"): max(0, scroll - 1)
        case .pageDown, .character(" "): scroll + max(1, rows - 1)
        case .pageUp: max(0, scroll - max(1, rows - 1))
        case .home: 0
        default: scroll
        }
    }

    /// Whether `label` passes the filter (a case-insensitive substring; empty passes all).
    func passes(_ label: String) -> Bool { filter.isEmpty || label.lowercased().contains(filter.lowercased()) }
}
