/// A formula across trends series: letters A, B, ... for the series in order, numbers, + - * /
/// and parentheses. As in PostHog, a division by zero gives 0.
enum TrendFormula {
    indirect enum Node {
        case number(Double)
        case series(Int)
        case negate(Node)
        case binary(Character, Node, Node)
    }

    struct Failure: Error { var reason: String }

    /// Why the formula cannot be read (for `series` series), or nil.
    static func problem(_ text: String, series: Int) -> String? {
        do {
            let node = try parse(text)
            if let letter = maxSeries(node), letter >= series {
                return "series \(Character(UnicodeScalar(65 + letter)!)) is not defined (series A to \(Character(UnicodeScalar(64 + series)!)))"
            }
            return nil
        } catch let failure as Failure {
            return failure.reason
        } catch {
            return "\(error)"
        }
    }

    static func maxSeries(_ node: Node) -> Int? {
        switch node {
        case .number: return nil
        case .series(let index): return index
        case .negate(let inner): return maxSeries(inner)
        case .binary(_, let left, let right): return [maxSeries(left), maxSeries(right)].compactMap { $0 }.max()
        }
    }

    static func evaluate(_ node: Node, _ values: [Double]) -> Double {
        switch node {
        case .number(let value): return value
        case .series(let index): return index < values.count ? values[index] : 0
        case .negate(let inner): return -evaluate(inner, values)
        case .binary(let op, let left, let right):
            let a = evaluate(left, values), b = evaluate(right, values)
            switch op {
            case "+": return a + b
            case "-": return a - b
            case "*": return a * b
            default: return b == 0 ? 0 : a / b
            }
        }
    }

    static func parse(_ text: String) throws -> Node {
        var parser = Parser(characters: Array(text.uppercased()))
        let node = try parser.sum()
        parser.skipSpaces()
        guard parser.position == parser.characters.count else {
            throw Failure(reason: "unexpected \(parser.characters[parser.position]) at character \(parser.position + 1)")
        }
        return node
    }

    struct Parser {
        let characters: [Character]
        var position = 0

        mutating func skipSpaces() {
            while position < characters.count && characters[position] == " " { position += 1 }
        }

        mutating func sum() throws -> Node {
            var node = try product()
            while true {
                skipSpaces()
                guard position < characters.count, characters[position] == "+" || characters[position] == "-" else { return node }
                let op = characters[position]
                position += 1
                node = .binary(op, node, try product())
            }
        }

        mutating func product() throws -> Node {
            var node = try factor()
            while true {
                skipSpaces()
                guard position < characters.count, characters[position] == "*" || characters[position] == "/" else { return node }
                let op = characters[position]
                position += 1
                node = .binary(op, node, try factor())
            }
        }

        mutating func factor() throws -> Node {
            skipSpaces()
            guard position < characters.count else { throw Failure(reason: "the formula ends early; write it like A/B") }
            let character = characters[position]
            if character == "-" {
                position += 1
                return .negate(try factor())
            }
            if character == "(" {
                position += 1
                let node = try sum()
                skipSpaces()
                guard position < characters.count, characters[position] == ")" else { throw Failure(reason: "a ( is not closed") }
                position += 1
                return node
            }
            if let ascii = character.asciiValue, (65...90).contains(ascii) {
                position += 1
                return .series(Int(ascii) - 65)
            }
            var digits = ""
            while position < characters.count, characters[position].isNumber || characters[position] == "." {
                digits.append(characters[position])
                position += 1
            }
            guard let value = Double(digits) else { throw Failure(reason: "unexpected \(character) at character \(position + 1)") }
            return .number(value)
        }
    }
}
