import TraceInputs

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
do {
    try await Registry.run(arguments)
    status = 0
} catch let error as CLIError {
    Terminal.error("trace-view: \(error.message)")
    if error.status == ExitStatus.usage.rawValue { Terminal.error("Run 'trace-view --help' for usage.") }
    status = error.status
} catch {
    Terminal.error("trace-view: \(error)")
    status = ExitStatus.internalError.rawValue
}
exit(status)
