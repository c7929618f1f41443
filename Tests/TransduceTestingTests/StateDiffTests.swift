import Testing
import TransduceTesting

private struct Profile: Equatable {
    var count = 1
    var label = "a"
    var tags: [String] = []
    var limit: Duration? = nil
}

private enum Phase { case idle, loading(page: Int, query: String) }

private final class Node {
    let value: Int
    var next: Node?
    init(_ value: Int) { self.value = value }
}

@Suite struct StateDiffTests {
    @Test func equalValuesHaveNoDiff() {
        #expect(StateDiff.diff(Profile(), Profile()) == nil)
        #expect(StateDiff.diff([1, 2], [1, 2]) == nil)
    }

    /// One property changed: its old line marked `−`, its new one `+`, the rest kept.
    @Test func aChangedPropertyIsItsTwoLines() {
        let diff = StateDiff.diff(Profile(count: 1), Profile(count: 2))
        #expect(
            diff == """
                  Profile(
                −   count: 1,
                +   count: 2,
                    label: "a",
                    tags: [],
                    limit: nil
                  )
                """)
    }

    /// An element inserted into an array is one `+` line; the elements around it are kept.
    @Test func anInsertedElementIsOneLine() {
        let diff = StateDiff.diff(Profile(tags: ["x", "z"]), Profile(tags: ["x", "y", "z"]))
        #expect(diff?.contains("+     \"y\",") == true, "\(diff ?? "nil")")
        #expect(diff?.split(separator: "\n").filter { $0.hasPrefix("+") || $0.hasPrefix("−") }.count == 1)
    }

    /// Enum cases with their payloads, optionals, dictionaries in key order, durations as they print.
    @Test func valuesAreWrittenAsTheyRead() {
        #expect(StateDiff.lines(of: Phase.idle) == [".idle"])
        #expect(StateDiff.lines(of: Phase.loading(page: 2, query: "q")) == [".loading(", "  page: 2,", "  query: \"q\"", ")"])
        #expect(StateDiff.lines(of: ["b": 1, "a": 2]) == ["[", "  \"a\": 2,", "  \"b\": 1", "]"])
        #expect(StateDiff.lines(of: Profile(limit: .seconds(1))).contains("  limit: 1.0 seconds"))
        #expect(StateDiff.lines(of: [Int]()) == ["[]"])
        #expect(StateDiff.lines(of: [String: Int]()) == ["[:]"])
        #expect(StateDiff.lines(of: Optional<Int>.none as Any) == ["nil"])
    }

    /// Long unchanged runs are cut to a count, keeping the lines nearest each change.
    @Test func longUnchangedRunsAreCut() {
        let old = Array(0..<40)
        var new = old
        new[20] = -1
        let diff = StateDiff.diff(old, new, context: 2) ?? ""
        let lines = diff.split(separator: "\n").map(String.init)
        #expect(lines.contains("−   20,") && lines.contains("+   -1,"), "\(diff)")
        // `[` and 0…19 before the change, 21…39 and `]` after: all but two lines each side cut.
        #expect(lines.first == "  … (19 unchanged)" && lines.last == "  … (18 unchanged)", "\(diff)")
        #expect(lines.count == 1 + 2 + 2 + 2 + 1, "\(diff)")
    }

    /// A reference cycle is written back to the instance as `↩︎`, never followed forever.
    @Test func aCycleOfReferencesEnds() {
        let first = Node(1)
        first.next = Node(2)
        first.next?.next = first
        let lines = StateDiff.lines(of: first)
        #expect(lines.contains("    next: Node(↩︎)"), "\(lines)")
        #expect(StateDiff.diff(first, Node(1)) != nil)
    }
}
