import TraceInputs
import TransduceTrace

/// `trace-view completion SHELL`: the shell completion script for bash, zsh or fish.
enum CompletionCommand: Subcommand {
    static let spec = CommandSpec(
        name: "completion", abstract: "Print the shell completion script for bash, zsh or fish", options: [],
        arguments: "bash|zsh|fish",
        discussion: """
            Completes the commands, each command's options and the values of the options that
            take one of a few words (--format, --color, ...), then file names. Load it with
            source <(trace-view completion bash) in ~/.bashrc, source <(trace-view completion zsh)
            in ~/.zshrc, or trace-view completion fish | source in fish's config.
            """)

    static func run(_ args: Arguments) throws {
        guard args.positionals.count == 1, let shell = args.positionals.first,
            let script = ShellCompletion.script(shell, commands: Registry.commands.map { $0.spec })
        else {
            throw CLIError.usage("completion takes one shell: bash, zsh or fish")
        }
        Terminal.write(script)
    }
}
