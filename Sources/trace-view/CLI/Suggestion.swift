/// "Did you mean": the known word closest to a mistyped one, as git and kubectl suggest it.
enum Suggestion {
    /// The word of `known` closest to `typed` by edit distance (insertions, deletions,
    /// substitutions and swaps of neighbours), when it is close enough to be what was meant: at
    /// most a third of its letters apart (at least 1, at most 3), or `typed` a prefix of it alone.
    static func closest(to typed: String, among known: [String]) -> String? {
        let prefixed = known.filter { $0.hasPrefix(typed) }
        if !typed.isEmpty, prefixed.count == 1 { return prefixed[0] }
        let limit = min(3, max(1, typed.count / 3))
        let ranked = known.map { (word: $0, distance: distance(typed, $0)) }.filter { $0.distance <= limit }
        guard let best = ranked.min(by: { ($0.distance, $0.word) < ($1.distance, $1.word) }) else { return nil }
        return best.word
    }

    /// The optimal string alignment distance of `a` and `b`, by characters; long words are far.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        guard x.count <= 64, y.count <= 64 else { return .max }
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }

    /// ` (did you mean 'word'?)`, or "" when nothing is close.
    static func hint(for typed: String, among known: [String], prefix: String = "") -> String {
        closest(to: typed, among: known).map { " (did you mean '\(prefix)\($0)'?)" } ?? ""
    }
}
