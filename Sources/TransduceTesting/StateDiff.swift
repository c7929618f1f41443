/// How two values differ, in lines a person reads: what a failed state assertion shows.
///
/// Values are written through `Mirror` — a struct as `Name(` with a line per stored property, an
/// enum case as `.case(payload)`, collections with an element per line, dictionaries and sets in
/// the order of their elements' descriptions, strings quoted — so any value can be compared,
/// `Equatable` or not, with no package beyond the standard library. The diff marks the lines only
/// the expected value has with `−`, those only the actual one has with `+`, and keeps `context`
/// unchanged lines around each change (a run of four or more beyond those is cut to a `…` line).
///
/// ```swift
/// StateDiff.diff(State(count: 1, label: "a"), State(count: 2, label: "a"))
/// //   State(
/// // −   count: 1,
/// // +   count: 2,
/// //     label: "a"
/// //   )
/// ```
public enum StateDiff {
    /// The most lines a value is written in; a larger one ends with a `…` line.
    public static let maxLines = 10_000
    /// The deepest nesting written; deeper values are written as `…`.
    public static let maxDepth = 64

    /// `value` written as ``diff(_:_:context:)`` compares it, a line per property or element.
    public static func lines(of value: Any) -> [String] {
        var writer = Writer()
        writer.write(value, label: nil, depth: 0, last: true)
        if writer.lines.count >= maxLines { writer.lines.append("…") }
        return writer.lines
    }

    /// How `actual` differs from `expected`, or `nil` when they are written alike.
    ///
    /// - Parameters:
    ///   - expected: the value the test expected (its lines are the `−` ones).
    ///   - actual: the value found (its lines are the `+` ones).
    ///   - context: unchanged lines kept before and after each change.
    public static func diff(_ expected: Any, _ actual: Any, context: Int = 2) -> String? {
        let old = lines(of: expected)
        let new = lines(of: actual)
        guard old != new else { return nil }
        let edits = Self.edits(old, new)
        var out: [String] = []
        var i = 0
        while i < edits.count {
            guard case .same = edits[i] else {
                out.append(edits[i].text)
                i += 1
                continue
            }
            var end = i
            while end < edits.count, case .same = edits[end] { end += 1 }
            let run = edits[i..<end].map(\.text)
            let keepBefore = i == 0 ? 0 : context
            let keepAfter = end == edits.count ? 0 : context
            // Cut only what saves lines worth a `…`: four or more.
            if run.count - keepBefore - keepAfter >= 4 {
                out += run.prefix(keepBefore)
                out.append("  … (\(run.count - keepBefore - keepAfter) unchanged)")
                out += run.suffix(keepAfter)
            } else {
                out += run
            }
            i = end
        }
        return out.joined(separator: "\n")
    }

    enum Edit {
        case same(String), removed(String), added(String)

        var text: String {
            switch self {
            case .same(let line): "  " + line
            case .removed(let line): "− " + line
            case .added(let line): "+ " + line
            }
        }
    }

    /// The lines of `old` and `new` as kept, removed and added: a longest common subsequence
    /// between the common prefix and suffix, or (when that table would be too large) the middle
    /// as all removed, then all added.
    static func edits(_ old: [String], _ new: [String]) -> [Edit] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let a = Array(old[prefix..<(old.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        var middle: [Edit] = []
        if a.count * b.count <= 4_000_000 {
            // lengths[i][j]: the longest common subsequence of a[i...] and b[j...].
            var lengths = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in stride(from: a.count - 1, through: 0, by: -1) {
                for j in stride(from: b.count - 1, through: 0, by: -1) {
                    lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
                }
            }
            var (i, j) = (0, 0)
            while i < a.count || j < b.count {
                if i < a.count, j < b.count, a[i] == b[j] {
                    middle.append(.same(a[i]))
                    (i, j) = (i + 1, j + 1)
                } else if j == b.count || (i < a.count && lengths[i + 1][j] >= lengths[i][j + 1]) {
                    middle.append(.removed(a[i]))
                    i += 1
                } else {
                    middle.append(.added(b[j]))
                    j += 1
                }
            }
        } else {
            middle = a.map(Edit.removed) + b.map(Edit.added)
        }
        return old[..<prefix].map(Edit.same) + middle + old[(old.count - suffix)...].map(Edit.same)
    }

    /// Writes values as lines, two spaces an indentation level.
    struct Writer {
        var lines: [String] = []
        /// The class instances being written, to write a cycle back to one as `↩︎`.
        var open: Set<ObjectIdentifier> = []

        mutating func write(_ value: Any, label: String?, depth: Int, last: Bool) {
            guard lines.count < StateDiff.maxLines else { return }
            let indent = String(repeating: "  ", count: depth)
            let head = indent + (label.map { "\($0): " } ?? "")
            let comma = last ? "" : ","
            if depth >= StateDiff.maxDepth {
                lines.append(head + "…" + comma)
                return
            }
            let mirror = Mirror(reflecting: value)
            if let leaf = Self.leaf(value, mirror) {
                lines.append(head + leaf + comma)
                return
            }
            var object: ObjectIdentifier?
            if mirror.displayStyle == .class {
                let id = ObjectIdentifier(value as AnyObject)
                guard !open.contains(id) else {
                    lines.append(head + "\(Self.typeName(value))(↩︎)" + comma)
                    return
                }
                open.insert(id)
                object = id
            }
            defer { object.map { _ = open.remove($0) } }
            var children = mirror.children.map { (label: $0.label, value: $0.value) }
            let (opening, closing): (String, String)
            switch mirror.displayStyle {
            case .optional:
                guard let wrapped = children.first else {
                    lines.append(head + "nil" + comma)
                    return
                }
                write(wrapped.value, label: label, depth: depth, last: last)
                return
            case .enum:
                let name = children.first?.label ?? "\(value)"
                guard let payload = children.first?.value else {
                    lines.append(head + "." + name + comma)
                    return
                }
                let fields = Mirror(reflecting: payload)
                if fields.displayStyle == .tuple {
                    children = fields.children.map { (label: Self.tupleLabel($0.label), value: $0.value) }
                } else {
                    children = [(label: nil, value: payload)]
                }
                (opening, closing) = ("." + name + "(", ")")
            case .collection:
                (opening, closing) = ("[", "]")
                children = children.map { (label: nil, value: $0.value) }
            case .set:
                (opening, closing) = ("Set([", "])")
                children = children.map { (label: nil, value: $0.value) }.sorted { "\($0.value)" < "\($1.value)" }
            case .dictionary:
                guard !children.isEmpty else {
                    lines.append(head + "[:]" + comma)
                    return
                }
                (opening, closing) = ("[", "]")
                children = children.map { entry -> (label: String?, value: Any) in
                    let pair = Array(Mirror(reflecting: entry.value).children)
                    guard pair.count == 2 else { return (label: nil, value: entry.value) }
                    return (label: Self.leafText(pair[0].value), value: pair[1].value)
                }.sorted { ($0.label ?? "") < ($1.label ?? "") }
            case .tuple:
                (opening, closing) = ("(", ")")
                children = children.map { (label: Self.tupleLabel($0.label), value: $0.value) }
            default:
                (opening, closing) = (Self.typeName(value) + "(", ")")
            }
            guard !children.isEmpty else {
                lines.append(head + opening + closing + comma)
                return
            }
            lines.append(head + opening)
            for (n, child) in children.enumerated() {
                write(child.value, label: child.label, depth: depth + 1, last: n == children.count - 1)
            }
            lines.append(indent + closing + comma)
        }

        /// The one-line text of a value written without parts, or `nil`: numbers, Booleans,
        /// strings; a struct or class without stored properties (`Name()`); and a struct that
        /// describes itself and whose stored properties are all private (`_low`, `_high`: a
        /// `Duration`), which reads better as its description.
        static func leaf(_ value: Any, _ mirror: Mirror) -> String? {
            if value is String || value is Substring || value is Character { return leafText(value) }
            switch mirror.displayStyle {
            case nil:
                return leafText(value)
            case .struct, .class:
                if mirror.children.isEmpty { return typeName(value) + "()" }
                if mirror.displayStyle == .struct, value is CustomStringConvertible,
                    mirror.children.allSatisfy({ $0.label?.hasPrefix("_") == true })
                {
                    return leafText(value)
                }
                return nil
            default:
                return nil
            }
        }

        /// A leaf's text: strings quoted and escaped, anything else as it describes itself.
        static func leafText(_ value: Any) -> String {
            switch value {
            case let text as String: text.debugDescription
            case let text as Substring: String(text).debugDescription
            case let character as Character: String(character).debugDescription
            default: "\(value)"
            }
        }

        /// A tuple element's label, or `nil` for a positional one (`.0`, `.1`, …).
        static func tupleLabel(_ label: String?) -> String? {
            guard let label, !label.hasPrefix(".") else { return nil }
            return label
        }

        /// The type's name without its module (`State`, `Array<Int>`).
        static func typeName(_ value: Any) -> String {
            let full = String(reflecting: type(of: value))
            return full.split(separator: "<", maxSplits: 1).enumerated().map { n, part in
                n == 0 ? String(part.split(separator: ".").last ?? part) : "<" + part
            }.joined()
        }
    }
}
