/// Mermaid and PlantUML sequence diagrams of a trace, from the same interactions as the text
/// diagram. Participants are declared in lane order (caller, gate, transduce, tasks, then task
/// instances as they appear); instances beyond `maxTasks` share the `tasks` participant.
public enum SequenceExport {
    /// Mermaid's default `maxTextSize`: a longer diagram is refused by a default Mermaid.
    public static let mermaidLimit = 50_000

    /// A Mermaid `sequenceDiagram` of the events at `indices` of `index` (in order), one line each.
    public static func mermaid(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        let (participants, ids, interactions) = prepare(index: index, indices: indices, maxTasks: maxTasks)
        var lines = ["sequenceDiagram"]
        for p in participants {
            lines.append("    participant \(ids[p]!) as \(mermaidText(index.title(of: p)))")
        }
        for i in interactions {
            let text = mermaidText(i.label + (i.note.isEmpty ? "" : " [\(i.note)]"))
            if i.style == .banner {
                lines.append("    Note over \(ids[.caller]!),\(ids[.tasks]!): \(text)")
            } else if i.isLocal {
                lines.append("    Note right of \(ids[i.from]!): \(text)")
            } else {
                lines.append("    \(ids[i.from]!)->>\(ids[i.to]!): \(text)")
            }
        }
        return lines
    }

    /// A PlantUML sequence diagram (`@startuml` … `@enduml`) of the events at `indices` of `index`.
    public static func plantUML(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        let (participants, ids, interactions) = prepare(index: index, indices: indices, maxTasks: maxTasks)
        var lines = ["@startuml"]
        for p in participants {
            lines.append("participant \"\(plantUMLText(index.title(of: p), quoted: true))\" as \(ids[p]!)")
        }
        for i in interactions {
            let text = plantUMLText(i.label + (i.note.isEmpty ? "" : " [\(i.note)]"), quoted: false)
            if i.style == .banner {
                lines.append("== \(text) ==")
            } else if i.isLocal {
                lines.append("note right of \(ids[i.from]!) : \(text)")
            } else {
                lines.append("\(ids[i.from]!) -> \(ids[i.to]!) : \(text)")
            }
        }
        lines.append("@enduml")
        return lines
    }

    /// Participants in lane order, their ids (`P0`…), and the interactions, with overflow tasks
    /// folded into `tasks` (named in the label).
    static func prepare(index: TraceIndex, indices: [Int], maxTasks: Int) -> (
        [Participant], [Participant: String], [Interaction]
    ) {
        var participants: [Participant] = [.caller, .gate, .transduce, .tasks]
        var ids: [Participant: String] = [:]
        for (n, p) in participants.enumerated() { ids[p] = "P\(n)" }
        var interactions: [Interaction] = []
        for i in indices {
            guard var interaction = index.interaction(for: index.events[i]) else { continue }
            for p in [interaction.from, interaction.to] where ids[p] == nil && participants.count < 4 + maxTasks {
                ids[p] = "P\(participants.count)"
                participants.append(p)
            }
            for p in [interaction.from, interaction.to] where ids[p] == nil {
                interaction.label = "\(index.title(of: p)) \(interaction.label)"
            }
            if ids[interaction.from] == nil { interaction.from = .tasks }
            if ids[interaction.to] == nil { interaction.to = .tasks }
            interactions.append(interaction)
        }
        return (participants, ids, interactions)
    }

    /// One line, control characters replaced (a label can hold any; they would reach whoever
    /// prints the file).
    static func oneLine(_ c: Character) -> Character? {
        if c == "\n" || c == "\r" { return " " }
        if c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "?" }
        return nil
    }

    /// Text for a Mermaid message, note or participant alias: `#` starts an entity code and `;`
    /// ends a statement in Mermaid, `:` separates the message, so all three are entity codes.
    static func mermaidText(_ text: String) -> String {
        var out = ""
        for c in text {
            if let replaced = oneLine(c) {
                out.append(replaced)
                continue
            }
            switch c {
            case "#": out += "#35;"
            case ";": out += "#59;"
            case ":": out += "#58;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Text for PlantUML: its creole markup (`#` or `*` opening a list, `**bold**`,
    /// `//italic//`, `--strike--`, `__underline__`, `~~wave~~`, `""mono""`, `<tags>`) is escaped
    /// with `~`; inside a quoted name a `"` becomes `'`.
    static func plantUMLText(_ text: String, quoted: Bool) -> String {
        var out = ""
        let characters = Array(text)
        for (i, c) in characters.enumerated() {
            if let replaced = oneLine(c) {
                out.append(replaced)
                continue
            }
            if quoted && c == "\"" {
                out.append("'")
                continue
            }
            let doubled = "*/-_~\"=".contains(c) && (i + 1 < characters.count && characters[i + 1] == c)
            let leading = (c == "#" || c == "*") && out.allSatisfy(\.isWhitespace)
            if doubled || leading || c == "<" || c == "~" { out.append("~") }
            out.append(c)
        }
        return out
    }
}
