/// Mermaid and PlantUML sequence diagrams of a trace, from the same interactions as the text
/// diagram. Task instances beyond `maxTasks` share the `tasks` participant.
public enum SequenceExport {
    public static func mermaid(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        let (ids, interactions) = prepare(index: index, indices: indices, maxTasks: maxTasks)
        var lines = ["sequenceDiagram"]
        for (p, id) in ids.sorted(by: { $0.value < $1.value }) {
            lines.append("    participant \(id) as \(clean(index.title(of: p), mermaid: true))")
        }
        for i in interactions {
            let text = clean(i.label + (i.note.isEmpty ? "" : " [\(i.note)]"), mermaid: true)
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

    public static func plantUML(index: TraceIndex, indices: [Int], maxTasks: Int = 12) -> [String] {
        let (ids, interactions) = prepare(index: index, indices: indices, maxTasks: maxTasks)
        var lines = ["@startuml"]
        for (p, id) in ids.sorted(by: { $0.value < $1.value }) {
            lines.append("participant \"\(clean(index.title(of: p), mermaid: false))\" as \(id)")
        }
        for i in interactions {
            let text = clean(i.label + (i.note.isEmpty ? "" : " [\(i.note)]"), mermaid: false)
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

    /// Participant ids (`P0`…) and the interactions, with overflow tasks folded into `tasks`.
    static func prepare(index: TraceIndex, indices: [Int], maxTasks: Int) -> ([Participant: String], [Interaction]) {
        var ids: [Participant: String] = [:]
        for p in [Participant.caller, .gate, .transduce, .tasks] { ids[p] = "P\(ids.count)" }
        var taskCount = 0
        var interactions: [Interaction] = []
        for i in indices {
            guard var interaction = index.interaction(for: index.events[i]) else { continue }
            for p in [interaction.from, interaction.to] where ids[p] == nil {
                if taskCount < maxTasks {
                    ids[p] = "P\(ids.count)"
                    taskCount += 1
                }
            }
            for p in [interaction.from, interaction.to] where ids[p] == nil {
                interaction.label = "\(index.title(of: p)) \(interaction.label)"
            }
            if ids[interaction.from] == nil { interaction.from = .tasks }
            if ids[interaction.to] == nil { interaction.to = .tasks }
            interactions.append(interaction)
        }
        return (ids, interactions)
    }

    /// Keeps labels on one line and free of the syntax each format reserves.
    static func clean(_ text: String, mermaid: Bool) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\n", "\r": out.append(" ")
            // Other control characters (a label can hold any) would reach whoever prints the file.
            case _ where c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }): out.append("?")
            case ";" where mermaid: out.append("#59;")
            case ":" where mermaid: out.append("#58;")
            case "\"" where !mermaid: out.append("'")
            default: out.append(c)
            }
        }
        return out
    }
}
