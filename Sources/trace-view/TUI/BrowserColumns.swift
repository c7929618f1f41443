import TransduceTrace

/// One column of a pane: its head, how wide it wants to be, what it shows of a row, and how rows
/// sort by it (`nil`: not sortable).
struct BrowserColumn<Row> {
    var title: String
    /// The narrowest it is drawn; a screen too narrow for every column at this leaves the last
    /// ones out rather than cut every one to nothing.
    var minimum: Int
    /// Its width at 120 columns.
    var preferred: Int
    /// Whether it takes a share of a wide screen's room (free text: labels, names, causes).
    var grows = false
    var value: (Row) -> String
    var ascending: ((Row, Row) -> Bool)?
    /// The head drawn where ``title`` does not fit (a narrow screen abbreviates its heads; it
    /// never cuts them).
    var short: String? = nil

    /// The columns its shortest head takes, with the gap after it.
    var headWidth: Int { (short ?? title).displayColumns + 1 }

    /// Columns sized to `width`: the preferred widths, the growing ones widened to fill a wide
    /// screen (at most three times their preference) or every one narrowed towards its minimum
    /// on a narrow one, growing ones first; columns that still do not fit are left out.
    static func widths(of columns: [BrowserColumn], fitting width: Int) -> [Int] {
        var widths = fitted(columns, width)
        // A column too narrow for its shortest head is left out, its room given to the first
        // growing column: a head is never cut.
        for i in columns.indices where widths[i] > 0 && widths[i] < columns[i].headWidth {
            let freed = widths[i]
            widths[i] = 0
            if let g = columns.indices.first(where: { columns[$0].grows && widths[$0] > 0 }) { widths[g] += freed }
        }
        return widths
    }

    private static func fitted(_ columns: [BrowserColumn], _ width: Int) -> [Int] {
        var widths = columns.map(\.preferred)
        var spare = width - widths.reduce(0, +)
        let growing = columns.indices.filter { columns[$0].grows }
        if spare > 0 && !growing.isEmpty {
            // Shared out one column at a time, so the shares differ by one at most.
            var turn = 0
            var stuck = 0
            while spare > 0 && stuck < growing.count {
                let i = growing[turn % growing.count]
                turn += 1
                if widths[i] < columns[i].preferred * 3 {
                    widths[i] += 1
                    spare -= 1
                    stuck = 0
                } else {
                    stuck += 1
                }
            }
            return widths
        }
        for round in [growing, Array(columns.indices)] {
            for i in round.reversed() where spare < 0 {
                // Not below its shortest head (a column whose minimum is 0 may still go).
                let floor = columns[i].minimum == 0 ? 0 : max(columns[i].minimum, columns[i].headWidth)
                let give = max(0, min(widths[i] - floor, -spare))
                widths[i] -= give
                spare += give
            }
        }
        while spare < 0, let last = widths.lastIndex(where: { $0 > 0 }) {
            spare += widths[last]
            widths[last] = 0
        }
        return widths
    }
}

/// How a pane's rows are sorted: by one of its sortable columns, up or down.
struct BrowserSort: Equatable {
    /// The index among the pane's sortable columns.
    var column: Int
    var descending: Bool
}

extension BrowserScreen {
    /// The requests pane's columns.
    var requestColumns: [BrowserColumn<TraceOverview.Request>] {
        [
            .init(title: "#", minimum: 4, preferred: 8, value: { "\($0.dispatch)" }, ascending: { $0.dispatch < $1.dispatch }),
            .init(title: "label", minimum: 8, preferred: 22, grows: true, value: \.label, ascending: { $0.label < $1.label }),
            .init(title: "style", minimum: 6, preferred: 14, value: \.style, ascending: { $0.style < $1.style }),
            .init(title: "latency", minimum: 8, preferred: 10, value: { duration($0.total) }, ascending: { $0.total < $1.total }),
            .init(title: "outcome", minimum: 6, preferred: 10, value: \.outcome, ascending: { $0.outcome < $1.outcome }),
            .init(
                title: "largest part", minimum: 8, preferred: 24, grows: true,
                value: { $0.dominant ?? data.dominantPart?($0) ?? "" }, ascending: nil),
        ]
    }

    /// The tasks pane's columns.
    var taskColumns: [BrowserColumn<TaskReport.Row>] {
        [
            .init(title: "task", minimum: 4, preferred: 8, value: { "\($0.task)" }, ascending: { $0.task < $1.task }),
            .init(title: "name", minimum: 8, preferred: 18, grows: true, value: \.name, ascending: { $0.name < $1.name }),
            .init(title: "policy", minimum: 6, preferred: 16, value: \.policy, ascending: { $0.policy < $1.policy }),
            .init(
                title: "ran", minimum: 8, preferred: 10, value: { $0.ran.map(duration) ?? "-" },
                ascending: { ($0.ran ?? 0) < ($1.ran ?? 0) }),
            .init(
                title: "outcome", minimum: 8, preferred: 22, grows: true, value: \.outcome,
                ascending: { $0.outcome < $1.outcome }),
            .init(
                title: "spawned by", minimum: 8, preferred: 24, grows: true, value: \.spawnedBy,
                ascending: { $0.spawnedBy < $1.spawnedBy }),
        ]
    }

    /// The gate pane's columns (two sparklines of ``TraceOverview/sparkWidth`` fit in 120).
    var gateColumns: [BrowserColumn<TraceOverview.Gate>] {
        [
            .init(
                title: "runtime", minimum: data.runtimeWidth, preferred: data.runtimeWidth, value: \.name,
                ascending: { $0.runtime < $1.runtime }),
            .init(
                title: "host", minimum: 5, preferred: 11, grows: true, value: { $0.host.isEmpty ? "-" : $0.host },
                ascending: { $0.host < $1.host }),
            .init(
                title: "cycles", minimum: 6, preferred: 7, value: { "\($0.cycles)" }, ascending: { $0.cycles < $1.cycles },
                short: "cycl"),
            .init(
                title: "queue", minimum: 6, preferred: 6, value: { "\($0.maxDepth)" }, ascending: { $0.maxDepth < $1.maxDepth }),
            .init(
                title: "wait p99", minimum: 9, preferred: 9, value: { duration($0.waitP99) },
                ascending: { $0.waitP99 < $1.waitP99 }),
            .init(
                title: "longest hold", minimum: 10, preferred: 22, grows: true,
                value: { "\(duration($0.longestHold)) \($0.holder)" }, ascending: { $0.longestHold < $1.longestHold },
                short: "longest"),
            .init(
                title: "holding now", minimum: 6, preferred: 14, grows: true,
                value: { $0.holdingNow.isEmpty ? "-" : $0.holdingNow }, ascending: { $0.holdingNow < $1.holdingNow },
                short: "now"),
            .init(
                title: "depth/time", minimum: 0, preferred: 17, value: { sparkline($0.depths.map(UInt64.init)) },
                ascending: nil, short: "depth"),
            .init(
                title: "wait p99/time", minimum: 0, preferred: 17, value: { sparkline($0.waitP99s) }, ascending: nil,
                short: "waits"),
        ]
    }

    /// `rows` in the pane's sort (`nil`: as the data has them), ties kept in the data's order.
    func sorted<Row>(_ rows: [Row], by columns: [BrowserColumn<Row>], _ sort: BrowserSort?) -> [Row] {
        let sortable = columns.compactMap(\.ascending)
        guard let sort, sort.column < sortable.count else { return rows }
        let ascending = sortable[sort.column]
        return rows.enumerated().sorted { a, b in
            let (x, y) = sort.descending ? (b.element, a.element) : (a.element, b.element)
            if ascending(x, y) { return true }
            if ascending(y, x) { return false }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The warnings pane's columns.
    var warningColumns: [BrowserColumn<TraceOverview.Warning>] {
        [
            .init(
                title: "check", minimum: 10, preferred: 20, value: \.warning.check.rawValue,
                ascending: { $0.warning.check.rawValue < $1.warning.check.rawValue }),
            .init(
                title: "runtime", minimum: data.runtimeWidth, preferred: data.runtimeWidth,
                value: { $0.runtime.rawValue == 0 ? "-" : $0.runtime.name }, ascending: { $0.runtime < $1.runtime }),
            .init(
                title: "warning", minimum: 20, preferred: 80, grows: true, value: \.warning.message,
                ascending: { $0.warning.message < $1.warning.message }),
        ]
    }

    /// How many columns of each pane sort, for the state's `s` key.
    var sortableColumns: [BrowserState.Pane: Int] {
        [
            .requests: requestColumns.filter { $0.ascending != nil }.count,
            .tasks: taskColumns.filter { $0.ascending != nil }.count,
            .gate: gateColumns.filter { $0.ascending != nil }.count,
            .warnings: warningColumns.filter { $0.ascending != nil }.count,
        ]
    }

    /// A pane's column heads, the sorted one marked with its direction.
    func heads<Row>(_ columns: [BrowserColumn<Row>], _ widths: [Int], _ sort: BrowserSort?) -> String {
        var sortable = -1
        let titles = zip(columns, widths).map { column, width -> String in
            if column.ascending != nil { sortable += 1 }
            let title = column.title.displayColumns < width ? column.title : column.short ?? column.title
            guard let sort, column.ascending != nil, sortable == sort.column else { return title }
            return title + (sort.descending ? (ascii ? " v" : " ▼") : (ascii ? " ^" : " ▲"))
        }
        return cells(titles, widths)
    }

    /// A row's cells, each cut to its column with `…` (`~` in ASCII) and padded; a column of width
    /// 0 is left out.
    func cells(_ values: [String], _ widths: [Int]) -> String {
        zip(values, widths).map { value, width in
            guard width > 0 else { return "" }
            let cut = shown(value).truncated(toColumns: width - 1, ellipsis: ascii ? "~" : "…")
            return cut + String(repeating: " ", count: max(0, width - cut.displayColumns))
        }.joined()
    }
}
