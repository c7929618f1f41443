/// `line` with every control character shown as an escape (`\x1b`, `\u{9b}`), except the
/// colour sequences (`ESC [ digits ; … m`) the renderers paint with: labels come from the
/// traced program (or a hostile file) and must not retitle, move or clear the user's terminal.
/// A label holding a colour sequence can at most change a colour; with `keepingColour: false`
/// (text laid out by width, where a sequence cut in two would print) not even that.
package func escapingControls(_ line: String, keepingColour: Bool = true) -> String {
    let scalars = Array(line.unicodeScalars)
    guard scalars.contains(where: isControl) else { return line }
    var out = String.UnicodeScalarView()
    var i = 0
    while i < scalars.count {
        let s = scalars[i]
        if keepingColour, s == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[" {
            var j = i + 2
            while j < scalars.count, ("0"..."9").contains(scalars[j]) || scalars[j] == ";" { j += 1 }
            if j < scalars.count, scalars[j] == "m" {
                out.append(contentsOf: scalars[i...j])
                i = j + 1
                continue
            }
        }
        if isControl(s) {
            let hex = String(s.value, radix: 16)
            out.append(
                contentsOf: (s.value < 0x80 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u{\(hex)}")
                    .unicodeScalars)
        } else {
            out.append(s)
        }
        i += 1
    }
    return String(out)
}

private func isControl(_ s: Unicode.Scalar) -> Bool {
    s.value < 0x20 || (0x7F...0x9F).contains(s.value)
}
