import FunnelCore

/// Validates a row's field values and writes it as one line of PostgreSQL COPY text format for
/// its raw table (fields in `kind.fields` order, tab separated, `\N` for NULL), or, for a kind
/// given a ``BinaryLayout``, as one row of the binary COPY format.
struct RowEncoder {
    var timestamps: TimestampParser
    let plans: [KindPlan]
    /// Per kind ordinal: the layout its rows are written in as binary COPY rows, or nil for text.
    let binary: [BinaryLayout?]
    private let countries: [Bool]
    private let currencies: [Bool]
    private let keyboardPhases: [Int]
    private let rotationPhases: [Int]

    /// Per app id (its bytes): the index in `timestamps.zones` of the zone its zone-less
    /// timestamps are read in; empty when no app has a zone of its own.
    private var appZones: [[UInt8]: Int] = [:]
    /// The index of the zone of rows whose app has none of its own (-1: none).
    private let defaultZone: Int

    /// - Parameters:
    ///   - latestMicros: the latest accepted instant (now + 2 days), microseconds since 1970.
    ///   - zone: the zone assumed for timestamps without one, if any.
    ///   - appZones: per app id, the zone assumed for its rows' timestamps without one (over `zone`).
    ///   - binary: a kind whose rows are written as binary COPY rows, with its columns' types.
    init(latestMicros: Int64, zone: AssumedTimeZone?, appZones: [String: AssumedTimeZone] = [:], binary: BinaryLayout? = nil) {
        timestamps = TimestampParser(latestMicros: latestMicros, zone: zone.map(ZoneConverter.init))
        defaultZone = timestamps.zoneIndex
        for (app, appZone) in appZones.sorted(by: { $0.key < $1.key }) {
            self.appZones[Array(app.utf8)] = timestamps.zones.count
            timestamps.zones.append(ZoneConverter(appZone))
        }
        plans = KindPlan.all
        var layouts = [BinaryLayout?](repeating: nil, count: KindPlan.all.count)
        if let binary { layouts[binary.kind.ordinal] = binary }
        self.binary = layouts
        countries = ISOCodes.countries
        currencies = ISOCodes.currencies
        let phases = FieldValues.keyboardPhases + FieldValues.rotationPhases
        keyboardPhases = FieldValues.keyboardPhases.compactMap { phases.firstIndex(of: $0) }
        rotationPhases = FieldValues.rotationPhases.compactMap { phases.firstIndex(of: $0) }
    }

    /// Appends the row's COPY line (with its newline) to `out`, or leaves `out` as it was and
    /// returns why the row is rejected. `time` receives the row's time field in microseconds
    /// since 1970 (for a date, its midnight UTC).
    mutating func encode(
        kind: Int, values: UnsafeBufferPointer<FieldValue>, store: UnsafeBufferPointer<UInt8>,
        into out: inout [UInt8], time: inout Int64
    ) -> RowFailure? {
        let plan = plans[kind]
        let layout = binary[kind]
        let mark = out.count
        var uxType = -1
        var uxPhase = -1
        if layout != nil { BinaryCopy.appendInt16(Int16(plan.types.count), to: &out) }
        if !appZones.isEmpty, let appField = plan.appIDField {
            let value = values[appField]
            let bytes = UnsafeBufferPointer(rebasing: store[Int(value.start)..<Int(value.start + value.count)])
            timestamps.zoneIndex = appZones[Array(bytes)] ?? defaultZone
        }
        for index in 0..<plan.types.count {
            if index > 0 && layout == nil { out.append(0x09) }
            let value = values[index]
            let bytes = UnsafeBufferPointer(rebasing: store[Int(value.start)..<Int(value.start + value.count)])
            if value.tag == .absent || (value.count == 0 && value.tag == .string) {
                if index == plan.userField {
                    // No user id: the row belongs to its device's person, or is rejected.
                    guard let device = plan.deviceField.map({ values[$0] }), Self.isPresent(device) else {
                        out.removeLast(out.count - mark)
                        return RowFailure(field: index, failure: .missingPerson)
                    }
                    let deviceBytes = UnsafeBufferPointer(rebasing: store[Int(device.start)..<Int(device.start + device.count)])
                    appendDevicePerson(deviceBytes, binary: layout != nil, to: &out)
                    continue
                }
                if plan.specs[index].isRequired {
                    out.removeLast(out.count - mark)
                    return RowFailure(field: index, failure: .missing)
                }
                if layout != nil {
                    BinaryCopy.appendNull(to: &out)
                } else {
                    out.append(contentsOf: plan.absent[index])
                }
                continue
            }
            if index == plan.userField, Self.hasDevicePrefix(bytes) {
                out.removeLast(out.count - mark)
                return RowFailure(field: index, failure: .reservedPrefix)
            }
            let result = encodeField(plan.types[index], value.tag, bytes, binary: layout?.columns[index], into: &out)
            switch result {
            case .failure(let failure):
                out.removeLast(out.count - mark)
                return RowFailure(field: index, failure: failure)
            case .success(let extra):
                if index == plan.timeField { time = extra }
                if index == plan.uxType { uxType = Int(extra) }
                if index == plan.uxPhase { uxPhase = Int(extra) }
            }
        }
        if let phaseField = plan.uxPhase, uxPhase >= 0,
           let failure = phaseFailure(type: uxType, phase: uxPhase) {
            out.removeLast(out.count - mark)
            return RowFailure(field: phaseField, failure: failure)
        }
        if layout == nil { out.append(0x0a) }
        return nil
    }

    private static let devicePrefix = Array(EventKind.devicePersonPrefix.utf8)

    /// Whether a field has a value (absent and empty are alike).
    @inline(__always)
    private static func isPresent(_ value: FieldValue) -> Bool {
        value.tag != .absent && !(value.count == 0 && value.tag == .string)
    }

    /// Whether `bytes` begin with the device person prefix.
    @inline(__always)
    private static func hasDevicePrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= devicePrefix.count && devicePrefix.indices.allSatisfy { bytes[$0] == devicePrefix[$0] }
    }

    /// Writes the person id of a row without a user id: the prefix and its device id (validated
    /// as the row's `device_id` field, which rejects the whole row if it is not an identifier).
    private func appendDevicePerson(_ device: UnsafeBufferPointer<UInt8>, binary: Bool, to out: inout [UInt8]) {
        if binary {
            BinaryCopy.appendInt32(Int32(Self.devicePrefix.count + device.count), to: &out)
            out.append(contentsOf: Self.devicePrefix)
            out.append(contentsOf: device)
        } else {
            out.append(contentsOf: Self.devicePrefix)
            CopyText.appendEscaped(device, to: &out)
        }
    }

    /// In ux, `phase` must belong to `type`: keyboard phases for keyboard, will/did for
    /// rotation, and none for the other types.
    private func phaseFailure(type: Int, phase: Int) -> FieldFailure? {
        let typeName = FieldValues.uxTypes[type]
        switch typeName {
        case "keyboard":
            return keyboardPhases.contains(phase) ? nil
                : .phaseOfType(type: typeName, phases: FieldValues.keyboardPhases)
        case "rotation":
            return rotationPhases.contains(phase) ? nil
                : .phaseOfType(type: typeName, phases: FieldValues.rotationPhases)
        default:
            return .phaseOfType(type: typeName, phases: [])
        }
    }

    /// Validates and appends one present field, as COPY text or, given its column's type
    /// (`binary`), in binary. On success returns a value the row needs later: the time in
    /// microseconds for timestamps and dates, the matched index for oneOf.
    @inline(__always)
    private mutating func encodeField(
        _ type: CompiledType, _ tag: ValueTag, _ bytes: UnsafeBufferPointer<UInt8>, binary: BinaryColumn?,
        into out: inout [UInt8]
    ) -> Result<Int64, FieldFailure> {
        let isBool = tag == .trueValue || tag == .falseValue
        if tag == .json, !type.isProperties { return .failure(.nested) }
        switch type {
        case .identifier, .text:
            if isBool { return .failure(.jsonType("a boolean")) }
            let isIdentifier = if case .identifier = type { true } else { false }
            let limit = isIdentifier ? 128 : 1024
            if bytes.count > limit { return .failure(.tooLong(bytes: limit)) }
            let scan = UTF8Check.scan(bytes)
            if scan.hasNUL { return .failure(.nul) }
            if !scan.isValidUTF8 { return .failure(.invalidUTF8) }
            if isIdentifier && scan.hasControl { return .failure(.controlCharacter) }
            if binary != nil {
                BinaryCopy.appendText(bytes, to: &out)
            } else if scan.needsEscape {
                CopyText.appendEscaped(bytes, to: &out)
            } else {
                out.append(contentsOf: bytes)
            }
            return .success(0)
        case .timestamp:
            if isBool { return .failure(.jsonType("a boolean")) }
            switch timestamps.parse(bytes, isJSONNumber: tag == .number) {
            case .success(let micros):
                if binary != nil {
                    BinaryCopy.appendInt32(8, to: &out)
                    BinaryCopy.appendInt64(micros - BinaryCopy.postgresEpochMicros, to: &out)
                } else {
                    TimestampWriter.appendTimestamp(micros: micros, to: &out)
                }
                return .success(micros)
            case .failure(let failure):
                return .failure(failure)
            }
        case .date:
            if tag != .string { return .failure(.jsonType(tag == .number ? "a number" : "a boolean")) }
            switch timestamps.parseDate(bytes) {
            case .success(let days):
                if binary != nil {
                    BinaryCopy.appendInt32(4, to: &out)
                    BinaryCopy.appendInt32(Int32(days - BinaryCopy.postgresEpochDays), to: &out)
                } else {
                    TimestampWriter.appendDate(days: days, to: &out)
                }
                return .success(days * 86_400 * 1_000_000)
            case .failure(let failure):
                return .failure(failure)
            }
        case .count(let limit):
            if isBool { return .failure(.jsonType("a boolean")) }
            switch NumberParsing.count(bytes, limit: limit) {
            case .success(let value):
                if let binary {
                    BinaryCopy.appendInteger(value, column: binary, to: &out)
                } else {
                    NumberParsing.appendInteger(value, to: &out)
                }
                return .success(value)
            case .failure(let failure):
                return .failure(failure)
            }
        case .money, .signedMoney:
            if isBool { return .failure(.jsonType("a boolean")) }
            let isSigned = if case .signedMoney = type { true } else { false }
            switch isSigned ? NumberParsing.signedMoney(bytes) : NumberParsing.money(bytes) {
            case .success(let millionths):
                NumberParsing.appendMoney(millionths, to: &out)
                return .success(millionths)
            case .failure(let failure):
                return .failure(failure)
            }
        case .rate:
            if isBool { return .failure(.jsonType("a boolean")) }
            switch NumberParsing.rate(bytes) {
            case .success(let units):
                NumberParsing.appendRate(units, to: &out)
                return .success(0)
            case .failure(let failure):
                return .failure(failure)
            }
        case .real:
            if isBool { return .failure(.jsonType("a boolean")) }
            switch NumberParsing.real(bytes) {
            case .success(.asWritten):
                if binary != nil { BinaryCopy.appendReal(bytes, to: &out) } else { out.append(contentsOf: bytes) }
            case .success(.zero):
                if binary != nil { BinaryCopy.appendRealZero(to: &out) } else { out.append(0x30) }
            case .failure(let failure): return .failure(failure)
            }
            return .success(0)
        case .boolean:
            let value: Bool
            switch tag {
            case .trueValue: value = true
            case .falseValue: value = false
            default:
                guard let parsed = Self.parseBoolean(bytes) else { return .failure(.notBoolean) }
                value = parsed
            }
            if binary != nil {
                BinaryCopy.appendInt32(1, to: &out)
                out.append(value ? 1 : 0)
            } else {
                out.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            }
            return .success(value ? 1 : 0)
        case .country:
            if tag != .string { return .failure(.jsonType(isBool ? "a boolean" : "a number")) }
            guard let index = ISOCodes.index(bytes, letters: 2), countries[index] else {
                return .failure(.notCountry)
            }
            if binary != nil { BinaryCopy.appendInt32(2, to: &out) }
            out.append(bytes[0] & 0xdf)
            out.append(bytes[1] & 0xdf)
            return .success(0)
        case .currency:
            if tag != .string { return .failure(.jsonType(isBool ? "a boolean" : "a number")) }
            guard let index = ISOCodes.index(bytes, letters: 3), currencies[index] else {
                return .failure(.notCurrency)
            }
            if binary != nil { BinaryCopy.appendInt32(3, to: &out) }
            out.append(bytes[0] & 0xdf)
            out.append(bytes[1] & 0xdf)
            out.append(bytes[2] & 0xdf)
            return .success(0)
        case .oneOf(let values):
            if tag != .string { return .failure(.jsonType(isBool ? "a boolean" : "a number")) }
            guard let index = Self.match(bytes, values) else { return .failure(.notOneOf) }
            if binary != nil { BinaryCopy.appendInt32(Int32(values[index].count), to: &out) }
            out.append(contentsOf: values[index])
            return .success(Int64(index))
        case .properties:
            // An object in NDJSON, or its JSON text in a CSV column (or an NDJSON string).
            if tag == .number || isBool { return .failure(.jsonType(isBool ? "a boolean" : "a number")) }
            if bytes.count > Self.maxPropertiesBytes { return .failure(.tooLong(bytes: Self.maxPropertiesBytes)) }
            let scan = UTF8Check.scan(bytes)
            if scan.hasNUL { return .failure(.nul) }
            if !scan.isValidUTF8 { return .failure(.invalidUTF8) }
            if let problem = JSONText.objectProblem(bytes) { return .failure(.notJSONObject(problem)) }
            if scan.needsEscape {
                CopyText.appendEscaped(bytes, to: &out)
            } else {
                out.append(contentsOf: bytes)
            }
            return .success(0)
        }
    }

    /// The largest properties object accepted, in bytes of JSON text.
    static let maxPropertiesBytes = 65_536

    /// true/false/1/0, case-insensitive.
    private static func parseBoolean(_ p: UnsafeBufferPointer<UInt8>) -> Bool? {
        switch p.count {
        case 1:
            if p[0] == UInt8(ascii: "1") { return true }
            if p[0] == UInt8(ascii: "0") { return false }
            return nil
        case 4:
            let word = (UInt32(p[0] | 0x20) << 24) | (UInt32(p[1] | 0x20) << 16)
                | (UInt32(p[2] | 0x20) << 8) | UInt32(p[3] | 0x20)
            return word == 0x7472_7565 ? true : nil
        case 5:
            let lowered = (p[0] | 0x20, p[1] | 0x20, p[2] | 0x20, p[3] | 0x20, p[4] | 0x20)
            return lowered == (0x66, 0x61, 0x6c, 0x73, 0x65) ? false : nil
        default:
            return nil
        }
    }

    /// The index of the value equal to `p` ignoring ASCII case.
    private static func match(_ p: UnsafeBufferPointer<UInt8>, _ values: [[UInt8]]) -> Int? {
        outer: for (index, value) in values.enumerated() where value.count == p.count {
            for i in 0..<p.count {
                let b = p[i]
                let lowered = b >= 0x41 && b <= 0x5a ? b | 0x20 : b
                if lowered != value[i] { continue outer }
            }
            return index
        }
        return nil
    }
}

/// PostgreSQL COPY text format escaping.
enum CopyText {
    /// Appends `bytes` with backslash, tab, newline and carriage return escaped.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        for b in bytes {
            switch b {
            case 0x5c: out.append(0x5c); out.append(0x5c)
            case 0x09: out.append(0x5c); out.append(UInt8(ascii: "t"))
            case 0x0a: out.append(0x5c); out.append(UInt8(ascii: "n"))
            case 0x0d: out.append(0x5c); out.append(UInt8(ascii: "r"))
            default: out.append(b)
            }
        }
    }
}
