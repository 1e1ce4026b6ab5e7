public import FunnelCore
import FunnelIngest

/// A valid row of each kind, to change one field at a time.
public let validRows: [EventKind: [String: String]] = [
    .installs: ["event_id": "e1", "app_id": "app", "user_id": "u1", "installed_at": "2024-05-01T10:00:00Z",
                "network": "facebook"],
    .opens: ["event_id": "e1", "app_id": "app", "user_id": "u1", "opened_at": "2024-05-01T10:00:00Z"],
    .retention: ["event_id": "e1", "app_id": "app", "user_id": "u1", "day": "3",
                 "reported_at": "2024-05-01T10:00:00Z"],
    .purchases: ["event_id": "e1", "app_id": "app", "user_id": "u1", "purchased_at": "2024-05-01T10:00:00Z",
                 "revenue": "4.99"],
    .invites: ["event_id": "e1", "app_id": "app", "user_id": "u1", "invite_id": "i1",
               "sent_at": "2024-05-01T10:00:00Z"],
    .adSpend: ["app_id": "app", "date": "2024-05-01", "network": "facebook", "spend": "10"],
    .steps: ["event_id": "e1", "app_id": "app", "user_id": "u1", "occurred_at": "2024-05-01T10:00:00Z",
             "step": "signup"],
    .ux: ["event_id": "e1", "app_id": "app", "user_id": "u1", "session_id": "s1",
          "occurred_at": "2024-05-01T10:00:00Z", "screen": "signup", "type": "screen_view"],
    .events: ["event_id": "e1", "app_id": "app", "user_id": "u1", "event": "signup_started",
              "occurred_at": "2024-05-01T10:00:00Z", "properties": #"{"method":"email"}"#],
    .currencyRates: ["date": "2024-05-01", "currency": "CHF", "usd_per_unit": "1.1"],
]

public enum Outcome: Equatable {
    /// The loaded row: field name -> its COPY text value.
    case row([String: String])
    case rejected(String)

    public var reason: String? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }

    public subscript(field: String) -> String? {
        if case .row(let values) = self { return values[field] }
        return nil
    }
}

/// Reads one CSV row of `kind`: the valid row with `changes` applied (nil removes a field).
public func outcome(
    _ kind: EventKind, _ changes: [String: String?] = [:], assumeTimeZone: String? = nil
) throws -> Outcome {
    var fields = validRows[kind]!
    for (name, value) in changes { fields[name] = value }
    let names = fields.keys.sorted()
    let header = names.joined(separator: ",")
    let row = names.map { csvQuoted(fields[$0]!) }.joined(separator: ",")
    let scratch = try Scratch()
    let path = try scratch.file("\(kind.name)-test.csv", header + "\n" + row + "\n")
    return try outcomeOf(path, kind: kind, assumeTimeZone: assumeTimeZone)
}

/// Reads one NDJSON line of `kind`.
public func jsonOutcome(_ kind: EventKind, _ line: String, assumeTimeZone: String? = nil) throws -> Outcome {
    let scratch = try Scratch()
    let path = try scratch.file("\(kind.name)-test.ndjson", line + "\n")
    return try outcomeOf(path, kind: kind, assumeTimeZone: assumeTimeZone)
}

private func outcomeOf(_ path: String, kind: EventKind, assumeTimeZone: String?) throws -> Outcome {
    let result = try readAll(path, options: testOptions(assumeTimeZone: assumeTimeZone))
    if let reject = result.rejects.first { return .rejected(reject.reason) }
    let columns = result.columns(kind)
    return .row(Dictionary(uniqueKeysWithValues: zip(kind.fieldNames, columns)))
}

public func csvQuoted(_ value: String) -> String {
    value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        ? "\"" + value.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
        : value
}
