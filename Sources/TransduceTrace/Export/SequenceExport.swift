/// Mermaid and PlantUML sequence diagrams of a trace, from the same interactions as the text
/// diagram. Participants are declared in lane order (caller, gate, transduce, tasks, then task
/// instances as they appear); instances beyond `maxTasks` share the `tasks` participant. With
/// several runtimes each has its own caller, gate, transduce and tasks participants, and every
/// participant is named with its runtime (ids repeat across runtimes and processes).
public enum SequenceExport {
    /// Mermaid's default `maxTextSize`: a longer diagram is refused by a default Mermaid.
    public static let mermaidLimit = 50_000
    /// PlantUML's default `PLANTUML_LIMIT_SIZE`: a PNG taller than this is cut, silently.
    public static let plantUMLPixelLimit = 4_096

    /// About how tall PlantUML draws a sequence diagram of `messages` arrows, notes and
    /// separators (measured: 32 px each and 100 for the lifelines' heads and feet).
    public static func plantUMLHeight(messages: Int) -> Int { 100 + 32 * messages }

    /// A participant of an exported diagram: a lifeline of one runtime (`runtime` nil when the
    /// diagram has one runtime, whose lifelines need no name).
    struct Lane: Hashable {
        var runtime: RuntimeKey?
        var participant: Participant
    }

    /// One arrow or note between lanes.
    struct Message {
        var from: Lane
        var to: Lane
        var text: String
        var style: Interaction.Style
        var isLocal: Bool { from == to }
    }

    /// The most characters of a message's text in an exported diagram; a longer one is cut,
    /// ending with `…` (a label can be 64 KiB: repeated on every arrow it made diagrams of
    /// gigabytes that no renderer draws).
    public static let maxTextCharacters = 200

    /// A Mermaid `sequenceDiagram` of the events at `indices` of `index`, one line each, in time
    /// order (ties in the order given), as the text diagram draws them.
    public static func mermaid(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        collected { mermaid(index: index, indices: indices, maxTasks: maxTasks, $0) }
    }

    /// ``mermaid(index:indices:maxTasks:)`` line by line to `emit`, holding no more than one
    /// line: the participants first (from a first pass over `indices`), then the arrows.
    public static func mermaid(index: TraceIndex, indices: [Int], maxTasks: Int = 12, _ emit: (String) -> Void) {
        let indices = index.inTimeOrder(indices)
        let (lanes, ids, several) = declare(index: index, indices: indices, maxTasks: maxTasks)
        emit("sequenceDiagram")
        for lane in lanes {
            emit("    participant \(ids[lane]!) as \(Escaping.mermaid(cut(title(of: lane, in: index))))")
        }
        forEachMessage(index: index, indices: indices, ids: ids, several: several) { m in
            let text = Escaping.mermaid(cut(m.text))
            if m.style == .banner {
                let runtime = m.from.runtime
                emit(
                    "    Note over \(ids[Lane(runtime: runtime, participant: .caller)]!),\(ids[Lane(runtime: runtime, participant: .tasks)]!): \(text)"
                )
            } else if m.isLocal {
                emit("    Note right of \(ids[m.from]!): \(text)")
            } else {
                emit("    \(ids[m.from]!)->>\(ids[m.to]!): \(text)")
            }
        }
    }

    /// A PlantUML sequence diagram (`@startuml` … `@enduml`) of the events at `indices` of `index`,
    /// in time order as ``mermaid(index:indices:maxTasks:)`` draws them.
    public static func plantUML(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        collected { plantUML(index: index, indices: indices, maxTasks: maxTasks, $0) }
    }

    /// ``plantUML(index:indices:maxTasks:)`` line by line to `emit`, as
    /// ``mermaid(index:indices:maxTasks:_:)`` streams.
    public static func plantUML(index: TraceIndex, indices: [Int], maxTasks: Int = 12, _ emit: (String) -> Void) {
        let indices = index.inTimeOrder(indices)
        let (lanes, ids, several) = declare(index: index, indices: indices, maxTasks: maxTasks)
        emit("@startuml")
        for lane in lanes {
            emit("participant \"\(Escaping.plantUML(cut(title(of: lane, in: index)), quoted: true))\" as \(ids[lane]!)")
        }
        forEachMessage(index: index, indices: indices, ids: ids, several: several) { m in
            let text = Escaping.plantUML(cut(m.text), quoted: false)
            if m.style == .banner {
                emit("== \(text) ==")
            } else if m.isLocal {
                emit("note right of \(ids[m.from]!) : \(text)")
            } else {
                emit("\(ids[m.from]!) -> \(ids[m.to]!) : \(text)")
            }
        }
        emit("@enduml")
    }

    /// The lines a streaming export hands out, in one array.
    static func collected(_ export: ((String) -> Void) -> Void) -> [String] {
        var lines: [String] = []
        export { lines.append($0) }
        return lines
    }

    /// `text` cut to `limit` characters (``maxTextCharacters`` by default) and to `4 × limit`
    /// bytes of UTF-8, ending with `…`: one character can hold any number of combining marks, so
    /// a count of characters alone bounds nothing.
    package static func cut(_ text: String, to limit: Int = maxTextCharacters) -> String {
        let maxBytes = 4 * limit
        // Few bytes are few characters; within both bounds it stays whole.
        guard text.utf8.count > limit, text.utf8.count > maxBytes || text.count > limit else { return text }
        let budget = maxBytes - "…".utf8.count
        var kept = String.UnicodeScalarView()
        var characters = 0
        var bytes = 0
        for c in text {
            guard characters < limit - 1 else { break }
            let size = c.utf8.count
            if bytes + size <= budget {
                kept.append(contentsOf: c.unicodeScalars)
                bytes += size
                characters += 1
                continue
            }
            // A first character alone over the budget (a base with thousands of marks): as many
            // of its scalars as fit.
            if characters == 0 {
                for s in c.unicodeScalars {
                    guard bytes + UTF8.width(s) <= budget else { break }
                    kept.append(s)
                    bytes += UTF8.width(s)
                }
            }
            break
        }
        return String(kept) + "…"
    }

    /// A lane's name: its lifeline's, with its runtime when the diagram has several.
    static func title(of lane: Lane, in index: TraceIndex) -> String {
        let name = index.title(of: lane.participant)
        return lane.runtime.map { "\(name) (runtime \($0.name))" } ?? name
    }

    /// Lanes in order (each runtime's caller, gate, transduce and tasks when it first appears,
    /// task instances as they appear, at most `maxTasks`), their ids (`P0`…), and whether the
    /// diagram has several runtimes.
    static func declare(index: TraceIndex, indices: [Int], maxTasks: Int) -> ([Lane], [Lane: String], Bool) {
        var runtimes = Set<RuntimeKey>()
        for i in indices where runtimes.count < 2 { runtimes.insert(index.events[i].runtimeKey) }
        let several = runtimes.count > 1
        var lanes: [Lane] = []
        var ids: [Lane: String] = [:]
        var tasks = 0
        func declare(_ lane: Lane) {
            ids[lane] = "P\(lanes.count)"
            lanes.append(lane)
        }
        if !several {
            for p in [Participant.caller, .gate, .transduce, .tasks] { declare(Lane(runtime: nil, participant: p)) }
        }
        for i in indices {
            let e = index.events[i]
            guard let interaction = index.interaction(for: e) else { continue }
            let runtime = several ? e.runtimeKey : nil
            if ids[Lane(runtime: runtime, participant: .caller)] == nil {
                for p in [Participant.caller, .gate, .transduce, .tasks] { declare(Lane(runtime: runtime, participant: p)) }
            }
            for p in [interaction.from, interaction.to]
            where ids[Lane(runtime: runtime, participant: p)] == nil && tasks < maxTasks {
                declare(Lane(runtime: runtime, participant: p))
                tasks += 1
            }
        }
        return (lanes, ids, several)
    }

    /// The messages of the events at `indices`, in order, on the lanes `declare` gave: a task
    /// without a lane of its own is drawn on its runtime's `tasks`, named in the text.
    static func forEachMessage(
        index: TraceIndex, indices: [Int], ids: [Lane: String], several: Bool, _ body: (Message) -> Void
    ) {
        for i in indices {
            let e = index.events[i]
            guard let interaction = index.interaction(for: e) else { continue }
            let runtime = several ? e.runtimeKey : nil
            var from = Lane(runtime: runtime, participant: interaction.from)
            var to = Lane(runtime: runtime, participant: interaction.to)
            var label = interaction.label
            for lane in [from, to] where ids[lane] == nil { label = "\(index.title(of: lane.participant)) \(label)" }
            if ids[from] == nil { from = Lane(runtime: runtime, participant: .tasks) }
            if ids[to] == nil { to = Lane(runtime: runtime, participant: .tasks) }
            let text = label + (interaction.note.isEmpty ? "" : " [\(interaction.note)]")
            body(Message(from: from, to: to, text: text, style: interaction.style))
        }
    }
}
