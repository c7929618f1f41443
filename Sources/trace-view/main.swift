#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
do {
    try await TraceViewCommand.run(arguments)
    status = 0
} catch let error as CLIError {
    Terminal.error("trace-view: \(error.message)")
    if error.status == 64 { Terminal.error("Run 'trace-view --help' for usage.") }
    status = error.status
} catch {
    Terminal.error("trace-view: \(error)")
    status = 70
}
exit(status)
