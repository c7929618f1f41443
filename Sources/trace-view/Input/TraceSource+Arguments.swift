import TraceInputs

extension TraceSource {
    /// Opens TRACE (the first positional argument) with the selection of `args`.
    convenience init(_ args: Arguments, access: Access) throws {
        try self.init(path: try args.trace(), args, access: access)
    }

    /// Opens `path` (one of the inputs of a command of several) with the selection of `args`
    /// (`--runtime`, `--pid`, `--all-processes`).
    convenience init(path: String, _ args: Arguments, access: Access) throws {
        try self.init(
            path: path, selection: try Selection(args), allProcesses: args.flag("all-processes"), access: access)
    }

    /// The name views show for TRACE in `args` (``name``), before it is opened.
    static func name(of args: Arguments) throws -> String { name(of: try args.trace()) }
}

extension Selection {
    /// `--runtime ID` and `--pid PID` of `args`.
    init(_ args: Arguments) throws {
        try self.init(runtime: try args.integer("runtime"), pid: try args.integer("pid"))
    }
}
