import CBabeltrace
import TransduceTrace

/// Maps libbabeltrace2's events (as cbabeltrace.c hands them over) to trace events, with their
/// texts numbered in a ``CTFTextTable`` rather than made into strings.
///
/// What an event class's fields are to the schema is worked out at its first event, so the others
/// are mapped by field position: no field name is read, compared or hashed per event, and an
/// event's class is found by its address in a small cache. Code names (a dispatch's
/// `style`, a cycle's `outcome`) are numbered in a table of their own and each looked up once.
///
/// Memory: the texts' table, and a few dozen bytes a class and a field. Not thread-safe.
struct CTFEventMapper {
    /// The texts of the labels read so far.
    let texts: CTFTextTable
    /// What could not be mapped (unknown classes, unexpected values): at most 100 notes.
    var notes: [String] = []

    /// The code names seen, numbered; and for each kind's code (`kind × 2`) and second code
    /// (`kind × 2 + 1`), the code each number names: -1 not yet looked up, -2 none.
    private let codeTexts = CTFTextTable()
    private var codes: [[Int16]] = Array(repeating: [], count: 512)

    // Each class worked out, by its index: its kind (nil: not a class this reader reads), its
    // fields in the flat arrays below, and where its `runtime` field is.
    private var classKinds: [TraceEvent.Kind?] = []
    private var classNotes: [String?] = []
    private var classFieldStarts: [Int] = []
    private var classFieldCounts: [Int] = []
    private var classRuntimeFields: [Int] = []
    // Each class's fields, by position: its slot in the schema, and its name.
    private var fieldSlots: [TraceSchema.Slot?] = []
    private var fieldSchemaNames: [String] = []
    /// The classes by address, and a direct-mapped cache of it in front; and the generation
    /// they are of.
    private var byClass: [UnsafeRawPointer: Int] = [:]
    private var recent: [(key: UnsafeRawPointer?, index: Int)] = Array(repeating: (nil, 0), count: 256)
    private var generation: UInt64 = 0

    init(texts: CTFTextTable) { self.texts = texts }

    /// The most classes kept; past it, the kept ones are forgotten and worked out again.
    static let classLimit = 4_096

    /// Writes `raw` into `event`: its kind, time, thread, process (`vpid`) and every numeric and
    /// code field, the others zero; its texts are left as they were. Returns the numbers of its
    /// `label` and `label2` in ``texts``, or nil when the event is not one this reader reads
    /// (another provider's, or an unknown `transduce:` class, which is noted).
    mutating func map(_ raw: cbt_event, into event: inout TraceEvent) -> (label: UInt32, label2: UInt32)? {
        let index = classIndex(raw)
        guard let kind = classKinds[index] else {
            if notes.count < 100, let note = classNotes[index] { notes.append(note) }
            return nil
        }
        // An event with fewer fields than its class (the C side could not work its layout out:
        // out of memory) is not read by the class's positions.
        guard Int(raw.field_count) == classFieldCounts[index] else {
            if notes.count < 100 { notes.append("transduce:\(kind.lttngName): an event's fields could not be read") }
            return nil
        }
        event.kind = kind
        event.time = raw.clock_ns
        event.thread = raw.vtid
        event.process = raw.vpid
        let runtimeField = classRuntimeFields[index]
        event.runtime = runtimeField >= 0 ? raw.fields[runtimeField].integer : 0
        event.code = 0
        event.code2 = 0
        event.step = 0
        event.dispatch = 0
        event.cycle = 0
        event.task = 0
        event.otherTask = 0
        event.nanos = 0
        event.count = 0
        var labels: (label: UInt32, label2: UInt32) = (0, 0)
        let start = classFieldStarts[index]
        for i in 0..<classFieldCounts[index] {
            guard let slot = fieldSlots[start + i] else { continue }
            let field = raw.fields[i]
            let ok: Bool
            if field.is_text != 0 {
                let bytes = UnsafeRawBufferPointer(start: field.text, count: field.text == nil ? 0 : Int(field.text_length))
                switch slot {
                case .label:
                    labels.label = texts.number(bytes)
                    ok = true
                case .label2:
                    labels.label2 = texts.number(bytes)
                    ok = true
                case .code, .code2: ok = setCode(slot, of: kind, named: bytes, in: &event)
                default: ok = false
                }
            } else {
                ok = event.set(slot, integer: field.integer)
            }
            if !ok && notes.count < 100 {
                notes.append("transduce:\(kind.lttngName): field \(fieldSchemaNames[start + i]) has an unexpected value")
            }
        }
        return labels
    }

    /// Sets `event`'s code or second code from its name: each name is looked up once a kind.
    private mutating func setCode(
        _ slot: TraceSchema.Slot, of kind: TraceEvent.Kind, named name: UnsafeRawBufferPointer, in event: inout TraceEvent
    ) -> Bool {
        let number = Int(codeTexts.number(name))
        let table = Int(kind.rawValue) * 2 + (slot == .code2 ? 1 : 0)
        if codes[table].count <= number { codes[table] += repeatElement(-1, count: number + 1 - codes[table].count) }
        if codes[table][number] == -1 {
            // The schema's own reading of a code name, on an event of the kind.
            var scratch = TraceEvent(kind: kind, time: 0, runtime: 0)
            codes[table][number] =
                scratch.set(slot, text: codeTexts.string(UInt32(number)))
                ? Int16(slot == .code2 ? scratch.code2 : scratch.code) : -2
        }
        let code = codes[table][number]
        guard code >= 0 else { return false }
        if slot == .code2 { event.code2 = UInt8(code) } else { event.code = UInt8(code) }
        return true
    }

    /// The index of `raw`'s class, worked out at its first event of a generation (cbabeltrace.h:
    /// a class's address names it until the generation changes, when the classes are forgotten).
    private mutating func classIndex(_ raw: cbt_event) -> Int {
        if raw.generation != generation {
            forgetClasses()
            generation = raw.generation
        }
        let key = raw.event_class!
        // A multiply spreads the addresses (allocations a few words apart) over the cache's
        // 256 places; a class that meets another there is found in the dictionary instead.
        let slot = Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15) >> 56)
        if recent[slot].key == key { return recent[slot].index }
        let index: Int
        if let known = byClass[key] {
            index = known
        } else {
            if classKinds.count >= Self.classLimit { forgetClasses() }
            index = addClass(raw)
            byClass[key] = index
        }
        recent[slot] = (key, index)
        return index
    }

    private mutating func addClass(_ raw: cbt_event) -> Int {
        let name = String(cString: raw.name)
        let fieldCount = Int(raw.field_count)
        let names = (0..<fieldCount).map { String(cString: raw.fields[$0].name) }
        let kind = name.hasPrefix("transduce:") ? TraceEvent.Kind(lttngName: String(name.dropFirst("transduce:".count))) : nil
        let schema = kind.map(TraceSchema.fields(of:)) ?? []
        classKinds.append(kind)
        classNotes.append(kind == nil && name.hasPrefix("transduce:") ? "unknown event \(name) skipped" : nil)
        classFieldStarts.append(fieldSlots.count)
        classFieldCounts.append(fieldCount)
        classRuntimeFields.append(names.firstIndex(of: "runtime") ?? -1)
        for i in 0..<fieldCount {
            // A name given twice sets its slot twice, the last winning (the provider never does).
            let field = schema.first { $0.name == names[i] }
            fieldSlots.append(field?.slot)
            fieldSchemaNames.append(field?.name ?? names[i])
        }
        return classKinds.count - 1
    }

    private mutating func forgetClasses() {
        classKinds.removeAll()
        classNotes.removeAll()
        classFieldStarts.removeAll()
        classFieldCounts.removeAll()
        classRuntimeFields.removeAll()
        fieldSlots.removeAll()
        fieldSchemaNames.removeAll()
        byClass.removeAll()
        recent = Array(repeating: (nil, 0), count: recent.count)
    }
}
