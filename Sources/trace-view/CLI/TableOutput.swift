import TraceInputs
import TransduceTrace

/// `--format text|json|tsv` of the table commands (`tasks`, `slow`, `summary`, `contention`,
/// `check`): the text report, or its table for data tools. JSON Lines is one object per row with
/// every column of the command's schema (absent values `null`); TSV is a header line of the
/// column names, then one line per row (absent values empty; tab, newline, carriage return and
/// backslash in a value written `\t`, `\n`, `\r`, `\\`; a list of numbers comma-separated). The
/// schemas are each command's ``TableSchema``, printed by its `--help`; nothing is cut.
enum TableFormat: String {
    case text, json, tsv, csv

    static let option = OptionSpec(
        "format", "text|json|tsv|csv", "text (default), or the table as JSON Lines, TSV or CSV for data tools (see COLUMNS below)"
    )

    init(_ args: Arguments) throws {
        guard let name = args.options["format"] else {
            self = .text
            return
        }
        guard let format = TableFormat(rawValue: name) else {
            throw CLIError.usage("unknown format '\(name)' (text, json, tsv or csv)")
        }
        self = format
    }
}

/// One value of a table row.
enum TableCell {
    case string(String)
    case number(UInt64)
    case numbers([UInt64])
    case bool(Bool)
    /// Already JSON (an object or array); written as is in both formats.
    case json(String)
    case null
}

/// One column of a table: its name, what it holds, and the JSON type of its values.
struct Column: Sendable {
    let name: String
    let meaning: String
    let type: ColumnType

    init(_ name: String, _ meaning: String, _ type: ColumnType = .string) {
        self.name = name
        self.meaning = meaning
        self.type = type
    }
}

/// What a column's JSON values are, as a JSON Schema fragment says it.
indirect enum ColumnType: Sendable {
    case string, integer, boolean, integers
    case orNull(ColumnType)
    /// A value of its own shape: the JSON Schema fragment that describes it.
    case json(String)

    /// The fragment (sorted keys, no spaces: the schema files compare byte for byte).
    var schema: String {
        switch self {
        case .string: #"{"type":"string"}"#
        case .integer: #"{"minimum":0,"type":"integer"}"#
        case .boolean: #"{"type":"boolean"}"#
        case .integers: #"{"items":{"minimum":0,"type":"integer"},"type":"array"}"#
        case .orNull(let type): #"{"anyOf":[\#(type.schema),{"type":"null"}]}"#
        case .json(let fragment): fragment
        }
    }
}

/// A command's columns, named once: the rows it writes, its `--help`, its JSON Schema
/// (`docs/schemas/`) and the tests read them.
struct TableSchema {
    /// The version every JSON row carries (`schema_version`) and each schema's `$id` names: it
    /// changes when a column is renamed, retyped or removed (a column added keeps it).
    static let version = 1

    /// Each column's name, what it holds, and its type.
    let columns: [Column]
    /// What one row is.
    let row: String

    /// The `COLUMNS` section of the command's help.
    var help: String {
        let width = columns.map(\.name.count).max() ?? 0
        return "COLUMNS (--format json|tsv|csv; one row per \(row)):\n"
            + columns.map { "  " + $0.name + String(repeating: " ", count: width + 2 - $0.name.count) + $0.meaning }
            .joined(separator: "\n")
    }

    /// Prints `rows` in `format` (their lines hold no control character: ``Terminal/print(_:)``
    /// would show a TSV's tabs as escapes).
    func print(_ rows: [[TableCell]], format: TableFormat, header: Bool = true) {
        var out = ""
        for line in lines(rows, format: format, header: header) {
            out += line + "\n"
            if out.utf8.count > 1 << 16 {
                Terminal.write(out)
                out = ""
            }
        }
        Terminal.write(out)
    }

    /// The lines of `rows` (each with one cell per column) in `format`: a TSV header first
    /// (unless `header` is false: rows that continue a table already begun).
    func lines(_ rows: [[TableCell]], format: TableFormat, header: Bool = true) -> [String] {
        var out = format == .tsv && header ? [columns.map(\.name).joined(separator: "\t")] : []
        if format == .csv && header { out.append(columns.map(\.name).joined(separator: ",")) }
        for row in rows {
            precondition(row.count == columns.count, "a row of \(row.count) cells for \(columns.count) columns")
            switch format {
            case .tsv: out.append(row.map(Self.tsv).joined(separator: "\t"))
            case .csv: out.append(row.map(Self.csv).joined(separator: ","))
            case .json, .text:
                out.append(
                    "{\"schema_version\":\(Self.version),"
                        + zip(columns, row).map { Self.json($0.name) + ":" + Self.json($1) }.joined(separator: ",") + "}")
            }
        }
        return out
    }

    static func json(_ s: String) -> String { Escaping.json(s) }

    /// The JSON Schema (draft 2020-12) of one JSON row of `command`: every column required and
    /// described, nothing else allowed. What `docs/schemas/COMMAND.schema.json` holds.
    func jsonSchema(command: String) -> String {
        let properties =
            [#"    "schema_version": {"const":\#(Self.version),"description":"the version of this shape"}"#]
            + columns.map { "    \(Self.json($0.name)): {\"description\":\(Self.json($0.meaning)),\($0.type.schema.dropFirst())" }
        let required = (["schema_version"] + columns.map(\.name)).map(Self.json).joined(separator: ", ")
        return [
            "{",
            #"  "$schema": "https://json-schema.org/draft/2020-12/schema","#,
            #"  "$id": "urn:transduce:trace-view:\#(command):v\#(Self.version)","#,
            #"  "title": \#(Self.json("trace-view \(command) --format json: one row per \(row)")),"#,
            #"  "type": "object","#,
            #"  "additionalProperties": false,"#,
            #"  "required": [\#(required)],"#,
            #"  "properties": {"#,
            properties.joined(separator: ",\n"),
            "  }",
            "}",
            "",
        ].joined(separator: "\n")
    }

    static func json(_ cell: TableCell) -> String {
        switch cell {
        case .string(let s): return json(s)
        case .number(let n): return String(n)
        case .numbers(let list): return "[" + list.map(String.init).joined(separator: ",") + "]"
        case .bool(let b): return b ? "true" : "false"
        case .json(let raw): return raw
        case .null: return "null"
        }
    }

    /// RFC 4180 (``Escaping/csv(_:)``).
    static func csv(_ cell: TableCell) -> String {
        switch cell {
        case .string(let s): return Escaping.csv(s)
        case .number(let n): return String(n)
        case .numbers(let list): return Escaping.csv(list.map(String.init).joined(separator: ","))
        case .bool(let b): return b ? "true" : "false"
        case .json(let raw): return Escaping.csv(raw)
        case .null: return ""
        }
    }

    /// ``Escaping/tsv(_:)``.
    static func tsv(_ cell: TableCell) -> String {
        switch cell {
        case .string(let s): return Escaping.tsv(s)
        case .number(let n): return String(n)
        case .numbers(let list): return list.map(String.init).joined(separator: ",")
        case .bool(let b): return b ? "true" : "false"
        case .json(let raw): return raw
        case .null: return ""
        }
    }
}

extension TableCell {
    /// The runtime id within its process, and its process (`null` when the trace has no pids).
    static func runtime(_ key: RuntimeKey) -> [TableCell] {
        let pid = key.process
        return [.number(key.runtime), pid == 0 ? .null : .number(UInt64(pid))]
    }
}
