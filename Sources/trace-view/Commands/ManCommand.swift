import TraceInputs
import TransduceTrace

/// `trace-view man`: the manual page, in roff.
enum ManCommand: Subcommand {
    static let spec = CommandSpec(
        name: "man", abstract: "Print the manual page (roff: trace-view man | man -l -)", options: [], arguments: "",
        discussion: """
            The manual page made from the same commands, options and exit statuses as the help.
            Read it with trace-view man | man -l -, or install it as trace-view.1 in a man
            directory.
            """)

    static func run(_ args: Arguments) throws {
        guard args.positionals.isEmpty else { throw CLIError.usage("man takes no argument") }
        Terminal.write(ManPage.page(Registry.commands.map { $0.spec }))
    }
}
