import Foundation
import FunnelCalendar
import FunnelCore
@testable import FunnelGenerate

/// A deliberately strict reader of generated files, written from docs/inputs.md's formats, so the
/// tests check the files rather than the generator's own idea of them.
struct StrictReader {
    struct Parsed {
        var kind: EventKind
        var header: [String]
        var rows: [[String: String]]
        var invalid: Int
        var reasons: [String]
    }

    static func temporaryDirectory(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("funnel-gen-tests-\(ProcessInfo.processInfo.processIdentifier)-\(name)").path
        try? FileManager.default.removeItem(atPath: path)
        return path
    }

    /// File bytes, gunzipped with the system gzip when the name ends in .gz.
    static func contents(_ path: String) throws -> Data {
        guard path.hasSuffix(".gz") else { return try Data(contentsOf: URL(fileURLWithPath: path)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return data
    }

    static func read(_ path: String, format: GeneratorFormat) throws -> Parsed {
        let name = (path as NSString).lastPathComponent
        guard let kind = EventKind(fileName: name) else { throw CocoaError(.fileReadUnknown) }
        let text = String(decoding: try contents(path), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        var parsed = Parsed(kind: kind, header: kind.fieldNames, rows: [], invalid: 0, reasons: [])
        if format == .csv {
            parsed.header = lines.isEmpty ? [] : lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        for line in lines {
            var row: [String: String] = [:]
            if format == .csv {
                guard let fields = csvFields(line), fields.count == parsed.header.count else {
                    parsed.invalid += 1; parsed.reasons.append("malformed"); continue
                }
                for (name, value) in zip(parsed.header, fields) where !value.isEmpty { row[name] = value }
            } else {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    parsed.invalid += 1; parsed.reasons.append("malformed"); continue
                }
                var wrongType = false
                for (key, value) in object {
                    if let string = value as? String { row[key] = string }
                    else if let number = value as? NSNumber {
                        let isBoolean = kind.fields.first { $0.name == key }?.type == .boolean
                        row[key] = isBoolean ? (number.boolValue ? "true" : "false") : number.stringValue
                    } else { wrongType = true }
                }
                if wrongType || !Set(object.keys).isSubset(of: Set(kind.fieldNames)) {
                    parsed.invalid += 1; parsed.reasons.append("keys"); continue
                }
            }
            if let reason = problem(row, kind: kind) {
                parsed.invalid += 1
                parsed.reasons.append(reason)
            } else {
                parsed.rows.append(row)
            }
        }
        return parsed
    }

    /// RFC 4180 fields, or nil when the quoting is malformed.
    static func csvFields(_ line: Substring) -> [String]? {
        var fields: [String] = []
        var current = ""
        var index = line.startIndex
        var quoted = false
        var afterQuote = false
        var fieldStart = true
        while index < line.endIndex {
            let c = line[index]
            if quoted {
                if c == "\"" {
                    let next = line.index(after: index)
                    if next < line.endIndex && line[next] == "\"" { current.append("\""); index = next }
                    else { quoted = false; afterQuote = true }
                } else { current.append(c) }
            } else if c == "," {
                fields.append(current); current = ""; afterQuote = false; fieldStart = true
                index = line.index(after: index); continue
            } else if afterQuote {
                return nil
            } else if c == "\"" {
                guard fieldStart else { return nil }
                quoted = true
            } else { current.append(c) }
            fieldStart = false
            index = line.index(after: index)
        }
        if quoted { return nil }
        fields.append(current)
        return fields
    }

    static func problem(_ row: [String: String], kind: EventKind) -> String? {
        for field in kind.fields {
            guard let value = row[field.name] else {
                if field.isRequired { return "missing \(field.name)" }
                // A person is named by user_id, or by device_id alone.
                if field.name == EventKind.userField, kind.namesPeople, row["device_id"] == nil { return "missing user_id and device_id" }
                continue
            }
            if !valid(value, field.type) { return "bad \(field.name)" }
        }
        return nil
    }

    static func valid(_ value: String, _ type: FieldType) -> Bool {
        switch type {
        case .identifier: return !value.isEmpty && value.utf8.count <= 128
        case .text: return value.utf8.count <= 1024
        case .timestamp: return parseTimestamp(value) != nil
        case .date: return CivilTime.days(parsing: value) != nil
        case .count: return !value.isEmpty && value.allSatisfy(\.isASCIIDigit)
        case .money, .signedMoney, .rate:
            let parts = value.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count <= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
        case .real: return Double(value)?.isFinite == true
        case .boolean: return ["true", "false", "1", "0"].contains(value)
        case .country: return value.count == 2 && value.allSatisfy { $0.isASCII && $0.isUppercase }
        case .currency: return value.count == 3 && value.allSatisfy { $0.isASCII && $0.isUppercase }
        case .oneOf(let values): return values.contains(value)
        case .properties:
            guard let data = value.data(using: .utf8) else { return false }
            return (try? JSONSerialization.jsonObject(with: data)) is [String: Any]
        }
    }

    /// Epoch milliseconds of an RFC 3339 timestamp with a zone, or of epoch milliseconds.
    static func parseTimestamp(_ value: String) -> Int64? {
        if !value.isEmpty && value.allSatisfy(\.isASCIIDigit) { return Int64(value) }
        let b = Array(value.utf8)
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58 else { return nil }
        func num(_ from: Int, _ to: Int) -> Int? { Int(String(decoding: b[from..<to], as: UTF8.self)) }
        guard let y = num(0, 4), let mo = num(5, 7), let d = num(8, 10), let h = num(11, 13), let mi = num(14, 16),
              let s = num(17, 19), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60 else { return nil }
        var i = 19
        var ms = 0
        if b[i] == 46 {
            var j = i + 1
            while j < b.count && b[j] >= 48 && b[j] <= 57 { j += 1 }
            guard j > i + 1, let f = num(i + 1, min(j, i + 4)) else { return nil }
            ms = f * [1, 100, 10, 1][min(j, i + 4) - i - 1]
            i = j
        }
        var offset = 0
        if i == b.count - 1 && b[i] == 90 {
            offset = 0
        } else if i == b.count - 6 && (b[i] == 43 || b[i] == 45) && b[i + 3] == 58,
                  let oh = num(i + 1, i + 3), let om = num(i + 4, i + 6) {
            offset = (b[i] == 43 ? 1 : -1) * (oh * 60 + om)
        } else { return nil }
        guard CivilTime.civil(fromDays: CivilTime.days(year: y, month: mo, day: d)) == (y, mo, d) else { return nil }
        let days = Int64(CivilTime.days(year: y, month: mo, day: d))
        return (days * 86_400 + Int64(h * 3600 + mi * 60 + s) - Int64(offset * 60)) * 1000 + Int64(ms)
    }

    /// Every data file of a generated directory (not truth.json), sorted by name.
    static func dataFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0 != "truth.json" }.sorted().map { directory + "/" + $0 }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
