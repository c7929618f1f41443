import Foundation

/// The trace's event vocabulary as `Vocabulary/events.json` defines it: the kinds in code order,
/// each kind's fields in order, and the code sets that code fields name. Everything the generator
/// writes is a function of this value.
public struct Vocabulary: Decodable, Sendable {
    /// The LTTng-UST provider's name (`transduce`).
    public var provider: String
    /// The code sets, each the case names of one of the runtime's enums in raw-value order.
    public var codeSets: [CodeSet]
    /// The kinds, in code order: a kind's index is the code traces store.
    public var kinds: [Kind]

    /// The case names of one of the runtime's code enums (``DispatchKind`` …).
    public struct CodeSet: Decodable, Sendable {
        /// The name of its table in `TraceNames` (`styles`).
        public var table: String
        /// The runtime's enum whose case names these are (`DispatchKind`).
        public var swift: String
        /// The names, in raw-value order.
        public var names: [String]
    }

    /// One kind of event.
    public struct Kind: Decodable, Sendable {
        /// The Swift case name (`cycleEnter`); the LTTng event name is it in snake case.
        public var name: String
        /// When the runtime emits it (the trace contract's last column).
        public var emitted: String
        /// What the kind's Swift documentation says beyond its fields.
        public var note: String?
        /// The fields after the common `time`, `thread` and `runtime`, in order.
        public var fields: [Field]

        /// The LTTng event name (`cycle_enter`).
        public var lttngName: String { Vocabulary.snakeCased(name) }
        /// The C constant's suffix (`CYCLE_ENTER`).
        public var constant: String { lttngName.uppercased() }
        /// The fields the schema has (LTTng-only ones left out), in order.
        public var schemaFields: [Field] { fields.filter { $0.slot != nil } }

        public init(name: String, emitted: String, note: String?, fields: [Field]) {
            self.name = name
            self.emitted = emitted
            self.note = note
            self.fields = fields
        }
    }

    /// One field of a kind.
    public struct Field: Decodable, Sendable {
        /// The field's name in every format: snake case.
        public var name: String
        /// Where `RuntimeEvent` and `TraceEvent` hold it; `nil` for a field only LTTng carries.
        public var slot: Slot?
        /// For a `code` or `code2` field, the `table` of its code set.
        public var codes: String?
        /// Written in hexadecimal by LTTng readers (ids that are not counters).
        public var hex: Bool?
        /// For a field only LTTng carries: the environment variable whose value it records.
        public var environment: String?
        /// What the field holds, as the trace contract's table says it.
        public var about: String

        public init(
            name: String, slot: Slot?, codes: String? = nil, hex: Bool? = nil, environment: String? = nil, about: String
        ) {
            self.name = name
            self.slot = slot
            self.codes = codes
            self.hex = hex
            self.environment = environment
            self.about = about
        }
    }

    /// The storage slots of the flat event (`RuntimeEvent`, `TraceEvent`, the ring's words).
    public enum Slot: String, Decodable, Sendable, CaseIterable {
        case dispatch, cycle, task, otherTask, step, code, code2, count, nanos, label, label2

        /// Whether it holds an integer that travels as one.
        public var isInteger: Bool {
            if case .integer = representation { true } else { false }
        }

        /// How the slot travels through C and LTTng.
        public var representation: Representation {
            switch self {
            case .dispatch, .cycle, .task, .otherTask, .nanos: .integer("uint64_t")
            case .step, .count: .integer("uint32_t")
            case .code, .code2: .code
            case .label, .label2: .text
            }
        }
    }

    /// How a field travels through the C wrappers and LTTng.
    public enum Representation: Equatable, Sendable {
        /// An integer of the C type.
        case integer(String)
        /// A `uint8_t` code, written to LTTng as its name.
        case code
        /// A (pointer, length) text, written to LTTng as a length-prefixed text sequence.
        case text
    }

    /// A definition the generator refuses, and why.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Reads and checks the definition at `url`.
    public static func load(_ url: URL) throws -> Vocabulary {
        try decode(Data(contentsOf: url))
    }

    /// Decodes and checks a definition.
    public static func decode(_ data: Data) throws -> Vocabulary {
        let vocabulary: Vocabulary
        do {
            vocabulary = try JSONDecoder().decode(Vocabulary.self, from: data)
        } catch let error as DecodingError {
            throw Invalid(description: "the definition does not decode: \(describe(error))")
        }
        try vocabulary.validate()
        return vocabulary
    }

    /// Checks what JSON cannot say: unique names, one field per slot, codes only on code slots and
    /// naming a known set, names C and Swift both accept.
    public func validate() throws {
        func fail(_ message: String) -> Invalid { Invalid(description: message) }
        guard Self.isIdentifier(provider) else { throw fail("provider \"\(provider)\" is not a C identifier") }
        guard !kinds.isEmpty, kinds.count <= 255 else { throw fail("there must be 1 to 255 kinds") }
        var tables = Set<String>()
        for set in codeSets {
            guard Self.isIdentifier(set.table), tables.insert(set.table).inserted else {
                throw fail("code set \"\(set.table)\" is defined twice or is not an identifier")
            }
            guard !set.names.isEmpty, set.names.count <= 255, Set(set.names).count == set.names.count,
                set.names.allSatisfy(Self.isIdentifier)
            else { throw fail("code set \"\(set.table)\" needs 1 to 255 distinct identifier names") }
        }
        var kindNames = Set<String>()
        for kind in kinds {
            guard Self.isIdentifier(kind.name), kind.name.first?.isLowercase == true,
                kind.name.allSatisfy({ $0.isLetter || $0.isNumber })
            else { throw fail("kind \"\(kind.name)\" must be a lower camel case identifier") }
            guard kindNames.insert(kind.lttngName).inserted else { throw fail("kind \"\(kind.name)\" is defined twice") }
            var fieldNames: Set<String> = ["runtime", "time", "thread"]
            var slots = Set<Slot>()
            for field in kind.fields {
                let at = "\(kind.name).\(field.name)"
                guard Self.isIdentifier(field.name), field.name == field.name.lowercased() else {
                    throw fail("field \(at) must be a snake case identifier")
                }
                guard fieldNames.insert(field.name).inserted else { throw fail("field \(at) is defined twice") }
                switch (field.slot, field.environment) {
                case (nil, nil): throw fail("field \(at) needs a slot (or an environment variable)")
                case (.some, .some): throw fail("field \(at) has both a slot and an environment variable")
                case (nil, .some(let variable)):
                    guard Self.isIdentifier(variable) else { throw fail("field \(at): \"\(variable)\" is no variable name") }
                case (.some(let slot), nil):
                    guard slots.insert(slot).inserted else { throw fail("field \(at) reuses slot \(slot.rawValue)") }
                    let isCode = slot.representation == .code
                    if isCode {
                        guard let table = field.codes, tables.contains(table) else {
                            throw fail("field \(at) is a code and must name a code set")
                        }
                    } else if field.codes != nil {
                        throw fail("field \(at) is not a code slot but names a code set")
                    }
                    if field.hex == true, !slot.isInteger { throw fail("field \(at): only integers can be hexadecimal") }
                }
            }
        }
    }

    /// The code set named `table`.
    public func codeSet(_ table: String?) -> CodeSet? { codeSets.first { $0.table == table } }

    /// `cycleEnter` → `cycle_enter` (the rule `TraceNames.snakeCased` applies too).
    public static func snakeCased(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return false }
        return s.unicodeScalars.allSatisfy {
            $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "\(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context): "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the document" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
