/// Shell completion scripts made from the command registry (``Registry``): the commands, each
/// command's options, and the values of an option that takes one of a few words
/// (`--format text|json|tsv|csv`). What `trace-view completion SHELL` prints.
enum ShellCompletion {
    static let shells = ["bash", "zsh", "fish"]

    /// The words an option's value is one of (`a|b|c`), or `nil` for a free value.
    static func choices(_ option: OptionSpec) -> [String]? {
        guard let value = option.value, value.contains("|"), !value.contains(" ") else { return nil }
        let words = value.split(separator: "|").map(String.init)
        return words.allSatisfy { $0.allSatisfy { $0.isLowercase || $0.isNumber || "/-_".contains($0) } } ? words : nil
    }

    /// Whether an option's value names a file or a directory.
    static func takesPath(_ option: OptionSpec) -> Bool { ["FILE", "DIR"].contains(option.value) }

    static func script(_ shell: String, commands: [CommandSpec]) -> String? {
        switch shell {
        case "bash": bash(commands)
        case "zsh": zsh(commands)
        case "fish": fish(commands)
        default: nil
        }
    }

    private static func flags(_ spec: CommandSpec) -> String {
        (spec.options + [.help]).map { "--" + $0.name }.joined(separator: " ")
    }

    static func bash(_ commands: [CommandSpec]) -> String {
        var lines = [
            "# bash completion for trace-view (made by `trace-view completion bash`):",
            "#   source <(trace-view completion bash)",
            "_trace_view() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
            "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
            "        COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) --help --version -V\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    local options=\"\" values=\"\" path=0",
            "    case \"${COMP_WORDS[1]}\" in",
        ]
        for spec in commands {
            lines.append("    \(spec.name))")
            lines.append("        options=\"\(flags(spec))\"")
            var cases: [String] = []
            for option in spec.options {
                if let words = choices(option) {
                    cases.append("        --\(option.name)) values=\"\(words.joined(separator: " "))\" ;;")
                } else if takesPath(option) {
                    cases.append("        --\(option.name)) path=1 ;;")
                } else if option.value != nil {
                    cases.append("        --\(option.name)) return ;;")
                }
            }
            if !cases.isEmpty { lines += ["        case \"$prev\" in"] + cases.map { "    " + $0 } + ["        esac"] }
            lines.append("        ;;")
        }
        lines += [
            "    esac",
            "    if [ -n \"$values\" ]; then",
            "        COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))",
            "    elif [ \"$path\" -eq 0 ] && [[ \"$cur\" == -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    fi",
            "}",
            "complete -o filenames -F _trace_view trace-view",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    /// zsh runs the bash completion through its `bashcompinit`.
    static func zsh(_ commands: [CommandSpec]) -> String {
        "#compdef trace-view\n# zsh completion for trace-view (made by `trace-view completion zsh`):\n"
            + "#   source <(trace-view completion zsh)\n"
            + "autoload -U +X bashcompinit && bashcompinit\n" + bash(commands)
    }

    static func fish(_ commands: [CommandSpec]) -> String {
        func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        var lines = [
            "# fish completion for trace-view (made by `trace-view completion fish`):",
            "#   trace-view completion fish | source",
            "complete -c trace-view -f",
        ]
        for spec in commands {
            lines.append(
                "complete -c trace-view -n __fish_use_subcommand -a \(spec.name) -d \(quoted(spec.abstract))")
        }
        for spec in commands {
            for option in spec.options + [.help] {
                var line = "complete -c trace-view -n '__fish_seen_subcommand_from \(spec.name)' -l \(option.name)"
                if let words = choices(option) {
                    line += " -x -a \(quoted(words.joined(separator: " ")))"
                } else if takesPath(option) {
                    line += " -r -F"
                } else if option.value != nil {
                    line += " -x"
                }
                lines.append(line + " -d \(quoted(String(option.help.prefix(80))))")
            }
            if spec.arguments.contains("TRACE") {
                lines.append("complete -c trace-view -n '__fish_seen_subcommand_from \(spec.name)' -F")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
