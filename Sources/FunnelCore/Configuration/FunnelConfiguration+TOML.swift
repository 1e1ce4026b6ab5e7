import Foundation

/// The configuration file format: TOML (the subset of `TOMLSubset`). Every key is optional.
///
/// ```toml
/// time_zone = "Asia/Tokyo"      # IANA name; dates are counted in it (default "UTC")
/// day_rule = "calendar"         # or "24h" (Adjust/Singular: day 1 = 24-48 h after install)
/// revenue_share = 0.7           # share of revenue kept after the store cut (default 1.0)
/// max_day = 365                 # last day N of triangles and curves
///
/// [funnel]                      # the default funnel: install -> first_open -> onboarding
/// onboarding_step = "onboarding_complete"   #   -> regular_user -> first_purchase
/// window_days = 7
/// purchase_window_days = 30
///
/// [regular_user]                # at least `opens` opens on days 1..`days`
/// opens = 3
/// days = 7
///
/// [retention]
/// brackets = ["1-3", "4-7", "8-14"]
///
/// [ltv]
/// horizons = [90, 180, 365]
///
/// [kfactor]
/// window_days = 30
///
/// [verdict]                     # on projected LTV_D180 / CPI
/// double_down_ratio = 1.5
/// cut_ratio = 0.7
///
/// [[funnels]]                   # any number of user-defined funnels
/// name = "invite_loop"
/// steps = ["install", "open", "invite"]     # install, open, purchase, invite or a steps name
/// order = "ordered"             # or "strict", "any"
/// window_days = 7               # counted from the first step
/// exclude = ["purchase"]        # optional exclusion events
/// breakdown = "plan"            # optional: by an event (or, breakdown_type = "person", user) property
/// step_math = ["first_time", "total"]      # optional: one for all steps, or one per step
///
/// [[retention]]                 # any number of retentions over any events (docs/retention.md)
/// name = "pro_buyers"
/// start = "onboarding_complete where plan = pro"   # default "install"
/// return = "purchase where revenue > 5"           # default "app_open"
/// cohorts = "first_time"        # or "recurring"
/// period = "week"               # "day" (by day_rule), "week" (from Sunday) or "month"
/// periods = 8                   # the last period computed
/// min_occurrences = 2           # return events needed in a period
/// brackets = ["1-2", "3-4"]     # bracket ranges of periods (default none)
///
/// [[trends]]                    # trends computed each run (docs/insights.md), dash_trends
/// name = "buyers"
/// series = ["purchase", "app_open"]   # events with filters, as funnel query trends --series
/// math = ["sum(revenue)", "dau"]      # one for all or one per series (default "total")
/// interval = "day"              # "hour", "day", "week" or "month"
/// week_start = "sunday"         # or "monday"
/// breakdown = "platform"        # optional, breakdown_type = "person" for the user's property
/// breakdown_limit = 25
/// formula = "A/B"               # optional, across series by letter
/// days = 30                     # the range: days through the app's last date with data
///
/// [[lifecycle]]                 # lifecycle computed each run (docs/insights.md), dash_lifecycle
/// name = "openers"
/// event = "app_open"
/// interval = "week"
/// days = 84
/// ```
extension FunnelConfiguration {
    /// Where compute looks for the configuration when `--config` is not given, in order:
    /// `$FUNNEL_CONFIG`, `./funnel.toml`, `$FUNNEL_HOME/funnel.toml`. None existing means defaults.
    public static func defaultLocations(environment: [String: String], currentDirectory: String) -> [String] {
        var paths: [String] = []
        if let explicit = environment["FUNNEL_CONFIG"], !explicit.isEmpty { paths.append(explicit) }
        paths.append(currentDirectory + "/funnel.toml")
        if let home = environment["FUNNEL_HOME"], !home.isEmpty { paths.append(home + "/funnel.toml") }
        return paths
    }

    /// Reads a configuration file; errors name the file, line and key.
    public static func load(path: String) throws(ConfigurationError) -> FunnelConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(file: path, message: "cannot read the configuration file (\(error.localizedDescription))")
        }
        do {
            return try FunnelConfiguration(toml: text)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Parses and validates configuration text.
    public init(toml text: String) throws(ConfigurationError) {
        self.init()
        let document = try TOMLSubset(parsing: text)
        var funnelIndex = 0
        var retentionIndex = 0
        var trendsIndex = 0
        var lifecycleIndex = 0
        var ingestAppIndex = 0
        var ingestFileIndex = 0
        for table in document.tables {
            var reader = TableReader(table: table)
            switch table.name {
            case "":
                timeZone = try reader.timeZone("time_zone") ?? timeZone
                if let rule = try reader.string("day_rule") {
                    guard let parsed = DayRule(rawValue: rule) ?? (rule == "hours24" ? .hours24 : nil) else {
                        throw reader.error("day_rule", "expected \"calendar\" or \"24h\", got \"\(rule)\"")
                    }
                    dayRule = parsed
                }
                revenueShare = try reader.number("revenue_share", in: 0.0...1.0) ?? revenueShare
                maxDay = try reader.integer("max_day", in: 30...3650) ?? maxDay
            case "funnel":
                onboardingStep = try reader.nonEmptyString("onboarding_step") ?? onboardingStep
                windowDays = try reader.integer("window_days", in: 1...365) ?? windowDays
                purchaseWindowDays = try reader.integer("purchase_window_days", in: 1...3650) ?? purchaseWindowDays
            case "regular_user":
                regularOpens = try reader.integer("opens", in: 1...1000) ?? regularOpens
                regularDays = try reader.integer("days", in: 1...365) ?? regularDays
            case "retention" where table.isArrayEntry:
                reader.prefix = "retention[\(retentionIndex)]"
                retentions.append(try reader.retention())
                retentionIndex += 1
            case "trends" where table.isArrayEntry:
                reader.prefix = "trends[\(trendsIndex)]"
                trends.append(try reader.trends())
                trendsIndex += 1
            case "lifecycle" where table.isArrayEntry:
                reader.prefix = "lifecycle[\(lifecycleIndex)]"
                lifecycles.append(try reader.lifecycle())
                lifecycleIndex += 1
            case "retention":
                retentionBrackets = try reader.brackets("brackets") ?? retentionBrackets
            case "ltv":
                ltvHorizons = try reader.integerList("horizons", in: 1...3650) ?? ltvHorizons
            case "kfactor":
                kFactorWindowDays = try reader.integer("window_days", in: 1...365) ?? kFactorWindowDays
            case "verdict":
                doubleDownRatio = try reader.number("double_down_ratio", in: 0.01...100) ?? doubleDownRatio
                cutRatio = try reader.number("cut_ratio", in: 0.0...100) ?? cutRatio
                minInstalls = try reader.integer("min_installs", in: 1...10_000_000) ?? minInstalls
                minPayers = try reader.integer("min_payers", in: 0...10_000_000) ?? minPayers
            case "ingest" where !table.isArrayEntry:
                try reader.ingest(into: &ingest)
            case "ingest.apps" where table.isArrayEntry:
                reader.prefix = "ingest.apps[\(ingestAppIndex)]"
                let (app, zone) = try reader.ingestApp()
                guard ingest.appTimeZones.updateValue(zone, forKey: app) == nil else {
                    throw reader.error("app", "\"\(app)\" has two [[ingest.apps]] entries; keep one")
                }
                ingestAppIndex += 1
            case "ingest.files" where table.isArrayEntry:
                reader.prefix = "ingest.files[\(ingestFileIndex)]"
                ingest.files.append(try reader.ingestFileRule())
                ingestFileIndex += 1
            case "funnels":
                reader.prefix = "funnels[\(funnelIndex)]"
                funnels.append(try reader.funnel(index: funnelIndex))
                funnelIndex += 1
            default:
                throw ConfigurationError(line: table.line, key: table.name,
                                         message: "unknown table; expected one of funnel, regular_user, retention, ltv, kfactor, verdict, ingest, [[funnels]], [[retention]], [[trends]], [[lifecycle]], [[ingest.apps]], [[ingest.files]]")
            }
            try reader.rejectUnusedKeys()
        }
        guard cutRatio < doubleDownRatio else {
            throw ConfigurationError(key: "verdict.cut_ratio", message: "must be below verdict.double_down_ratio (\(doubleDownRatio)), got \(cutRatio)")
        }
        guard regularDays <= maxDay else {
            throw ConfigurationError(key: "regular_user.days", message: "must not exceed max_day (\(maxDay))")
        }
        var names: Set<String> = ["default"]
        for (index, funnel) in funnels.enumerated() where !names.insert(funnel.name).inserted {
            throw ConfigurationError(key: "funnels[\(index)].name",
                                     message: "\"\(funnel.name)\" is used twice (or is the reserved name \"default\"); funnel names are unique")
        }
        var retentionNames: Set<String> = []
        for (index, retention) in retentions.enumerated() where !retentionNames.insert(retention.name).inserted {
            throw ConfigurationError(key: "retention[\(index)].name", message: "\"\(retention.name)\" is used twice; retention names are unique")
        }
        var trendsNames: Set<String> = []
        for (index, trend) in trends.enumerated() where !trendsNames.insert(trend.name).inserted {
            throw ConfigurationError(key: "trends[\(index)].name", message: "\"\(trend.name)\" is used twice; trends names are unique")
        }
        var lifecycleNames: Set<String> = []
        for (index, lifecycle) in lifecycles.enumerated() where !lifecycleNames.insert(lifecycle.name).inserted {
            throw ConfigurationError(key: "lifecycle[\(index)].name", message: "\"\(lifecycle.name)\" is used twice; lifecycle names are unique")
        }
    }
}

/// Reads and checks the keys of one table, remembering which were used so unknown ones (typos)
/// are refused.
private struct TableReader {
    let table: TOMLTable
    var prefix: String
    var used: Set<String> = []

    init(table: TOMLTable) {
        self.table = table
        self.prefix = table.name
    }

    func dotted(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    func error(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(line: table.keyLines[key] ?? table.line, key: dotted(key), message: message)
    }

    mutating func raw(_ key: String) -> TOMLValue? {
        used.insert(key)
        return table.values[key]
    }

    mutating func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = raw(key) else { return nil }
        guard case .string(let text) = value else { throw error(key, "expected a \"quoted string\", got \(value.shown)") }
        return text
    }

    /// The most bytes (UTF-8) of a funnel or retention name, as of an identifier in the inputs.
    static let maxNameBytes = 128

    /// A name that identifies a funnel or a retention in the computed tables: non-empty, at most
    /// 128 bytes, no control character (C0, DEL, C1).
    mutating func name(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try nonEmptyString(key) else { return nil }
        guard text.utf8.count <= Self.maxNameBytes else {
            throw error(key, "a name has at most \(Self.maxNameBytes) bytes (UTF-8), got \(text.utf8.count)")
        }
        if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw error(key, "a name has no control character, got \(String(format: "U+%04X", control.value)) in it")
        }
        return text
    }

    mutating func nonEmptyString(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try string(key) else { return nil }
        guard !text.trimmingWhitespace().isEmpty else { throw error(key, "expected a non-empty name") }
        return text
    }

    mutating func timeZone(_ key: String) throws(ConfigurationError) -> String? {
        guard let name = try string(key) else { return nil }
        guard TimeZone(identifier: name) != nil, !name.isEmpty else {
            throw error(key, "expected an IANA time zone name such as \"UTC\", \"Europe/Berlin\" or \"Asia/Tokyo\", got \"\(name)\"")
        }
        return name
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = raw(key) else { return nil }
        guard case .integer(let number) = value else {
            throw error(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(value.shown)")
        }
        guard range.contains(number) else {
            throw error(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(number)")
        }
        return number
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        guard let value = raw(key) else { return nil }
        let number: Double
        switch value {
        case .integer(let whole): number = Double(whole)
        case .float(let fraction): number = fraction
        default: throw error(key, "expected a number from \(range.lowerBound) to \(range.upperBound), got \(value.shown)")
        }
        guard range.contains(number) else {
            throw error(key, "expected a number from \(range.lowerBound) to \(range.upperBound), got \(number)")
        }
        return number
    }

    mutating func stringList(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let value = raw(key) else { return nil }
        guard case .array(let items) = value else { throw error(key, "expected an array of \"strings\", got \(value.shown)") }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item, !text.isEmpty else {
                throw error(key, "expected an array of non-empty \"strings\", got \(item.shown) in it")
            }
            strings.append(text)
        }
        return strings
    }

    mutating func integerList(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> [Int]? {
        guard let value = raw(key) else { return nil }
        guard case .array(let items) = value, !items.isEmpty else {
            throw error(key, "expected a non-empty array of whole numbers, got \(value.shown)")
        }
        var numbers: [Int] = []
        for item in items {
            guard case .integer(let number) = item, range.contains(number) else {
                throw error(key, "expected whole numbers from \(range.lowerBound) to \(range.upperBound), got \(item.shown) in it")
            }
            numbers.append(number)
        }
        return numbers.sorted()
    }

    mutating func brackets(_ key: String) throws(ConfigurationError) -> [ClosedRange<Int>]? {
        guard let texts = try stringList(key) else { return nil }
        var ranges: [ClosedRange<Int>] = []
        for text in texts {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let first = Int(parts[0]), let last = Int(parts[1]), first >= 0, first <= last else {
                throw error(key, "expected day ranges such as \"1-3\" (first-last, first <= last), got \"\(text)\"")
            }
            ranges.append(first...last)
        }
        guard !ranges.isEmpty else { throw error(key, "expected at least one day range such as \"1-3\"") }
        return ranges
    }

    mutating func funnel(index: Int) throws(ConfigurationError) -> FunnelDefinition {
        guard let name = try name("name") else {
            throw ConfigurationError(line: table.line, key: dotted("name"), message: "every [[funnels]] entry needs a name")
        }
        guard let stepTexts = try stringList("steps"), stepTexts.count >= 2 else {
            throw error("steps", "expected at least two steps, each an event name with optional filters "
                + "(install, app_open, purchase, invite_sent, an onboarding step, a custom event: \"signup where method = email\")")
        }
        guard stepTexts.count <= EventFunnelSpec.maxSteps else {
            throw error("steps", "a funnel has at most \(EventFunnelSpec.maxSteps) steps, got \(stepTexts.count)")
        }
        var steps: [EventMatcher] = []
        for text in stepTexts {
            do {
                var matcher = try FunnelSyntax.matcher(text)
                matcher.events = matcher.events.map(FunnelDefinition.eventName)
                steps.append(matcher)
            } catch {
                throw self.error("steps", error.description)
            }
        }
        var order = EventFunnelOrder.ordered
        if let text = try string("order") {
            guard let parsed = text == "any" ? .unordered : EventFunnelOrder(rawValue: text) else {
                throw error("order", "expected \"ordered\", \"strict\" or \"unordered\" (or \"any\"), got \"\(text)\"")
            }
            order = parsed
        }
        var windowMicros = Int64(try integer("window_days", in: 1...365) ?? 7) * 86_400_000_000
        if let text = try string("window") {
            do {
                windowMicros = try FunnelSyntax.window(text)
            } catch {
                throw self.error("window", error.description)
            }
        }
        var exclusions: [FunnelExclusion] = []
        let exclusionTexts = try stringList("exclude") ?? []
        guard exclusionTexts.count <= EventFunnelSpec.maxExclusions else {
            throw error("exclude", "a funnel has at most \(EventFunnelSpec.maxExclusions) exclusions, got \(exclusionTexts.count)")
        }
        for text in exclusionTexts {
            do {
                var exclusion = try FunnelSyntax.exclusion(text, stepCount: steps.count)
                exclusion.matcher.events = exclusion.matcher.events.map(FunnelDefinition.eventName)
                exclusions.append(exclusion)
            } catch {
                throw self.error("exclude", error.description)
            }
        }
        if let clash = exclusions.first(where: { exclusion in steps.contains { $0 == exclusion.matcher } }) {
            throw error("exclude", "\"\(clash.matcher.label)\" is also a step of this funnel; an exclusion must be another event")
        }
        var stepMath = StepMath.total
        var stepMaths: [StepMath]?
        func math(_ text: String) throws(ConfigurationError) -> StepMath {
            guard let parsed = StepMath(rawValue: text) else {
                throw error("step_math", "expected \"total\", \"first_time\" or \"first_time_with_filters\", got \"\(text)\"")
            }
            return parsed
        }
        if case .array? = table.values["step_math"] {
            let texts = try stringList("step_math") ?? []
            guard texts.count == steps.count else {
                throw error("step_math", "give one math for all steps or a list of one per step (\(steps.count)), got \(texts.count)")
            }
            var parsed: [StepMath] = []
            for text in texts { parsed.append(try math(text)) }
            stepMaths = parsed
        } else if let text = try string("step_math") {
            stepMath = try math(text)
        }
        var spec = EventFunnelSpec(steps: steps, order: order, windowMicros: windowMicros, exclusions: exclusions,
                                   stepMath: stepMath)
        if let property = try nonEmptyString("breakdown") {
            var source = FunnelBreakdown.Source.event
            if let text = try string("breakdown_type") {
                guard let parsed = FunnelBreakdown.Source(rawValue: text) else {
                    throw error("breakdown_type", "expected \"event\" or \"person\", got \"\(text)\"")
                }
                source = parsed
            }
            var attribution = FunnelBreakdown.Attribution.firstTouch
            if let text = try string("attribution") {
                guard let parsed = FunnelBreakdown.Attribution(text: text) else {
                    throw error("attribution", "expected \"first_touch\", \"last_touch\", \"all_events\" or \"step:N\", got \"\(text)\"")
                }
                if case .step(let step) = parsed, step > steps.count {
                    throw error("attribution", "step:\(step) is past the last step (the funnel has \(steps.count))")
                }
                attribution = parsed
            }
            spec.breakdown = FunnelBreakdown(property: property, source: source, attribution: attribution)
        } else {
            for key in ["breakdown_type", "attribution"] {
                if try string(key) != nil {
                    throw error(key, "needs a breakdown: set breakdown = \"<property>\" in this funnel too")
                }
            }
        }
        if let problem = spec.problem() { throw ConfigurationError(line: table.line, key: dotted("steps"), message: problem) }
        var definition = FunnelDefinition(name: name, spec: spec)
        definition.stepMaths = stepMaths
        return definition
    }

    /// An event with filters as `funnel query` writes it, configured names mapped as in funnels.
    mutating func eventMatcher(_ key: String, text: String) throws(ConfigurationError) -> EventMatcher {
        do {
            var matcher = try FunnelSyntax.matcher(text)
            matcher.events = matcher.events.map(FunnelDefinition.eventName)
            return matcher
        } catch {
            throw self.error(key, error.description)
        }
    }

    mutating func insightInterval() throws(ConfigurationError) -> (InsightInterval, WeekStart) {
        var interval = InsightInterval.day
        if let text = try string("interval") {
            guard let parsed = InsightInterval(rawValue: text) else {
                throw error("interval", "expected \"hour\", \"day\", \"week\" or \"month\", got \"\(text)\"")
            }
            interval = parsed
        }
        var weekStart = WeekStart.sunday
        if let text = try string("week_start") {
            guard let parsed = WeekStart(rawValue: text) else {
                throw error("week_start", "expected \"sunday\" or \"monday\", got \"\(text)\"")
            }
            weekStart = parsed
        }
        return (interval, weekStart)
    }

    mutating func trends() throws(ConfigurationError) -> TrendsDefinition {
        guard let name = try name("name") else {
            throw ConfigurationError(line: table.line, key: dotted("name"), message: "every [[trends]] entry needs a name")
        }
        guard let texts = try stringList("series"), !texts.isEmpty else {
            throw error("series", "every [[trends]] entry needs series = [\"<event>\", ...]")
        }
        guard texts.count <= 26 else { throw error("series", "at most 26 series (A to Z), got \(texts.count)") }
        var maths: [String] = []
        if case .string(let one)? = table.values["math"] {
            used.insert("math")
            maths = [one]
        } else {
            maths = try stringList("math") ?? ["total"]
        }
        guard maths.count == 1 || maths.count == texts.count else {
            throw error("math", "give one for all series or one per series (\(texts.count)), got \(maths.count)")
        }
        var series: [TrendSeries] = []
        for (index, text) in texts.enumerated() {
            let mathText = maths[maths.count == 1 ? 0 : index]
            guard let math = TrendMath(text: mathText) else {
                throw error("math", "\"\(mathText)\": use total, dau, weekly_active, monthly_active, first_time_for_user, "
                    + "avg_count_per_user (or min_, max_, median_, p75_, p90_, p95_, p99_), or sum(property), avg(property), ...")
            }
            series.append(TrendSeries(matcher: try eventMatcher("series", text: text), math: math))
        }
        var definition = TrendsDefinition(name: name, series: series)
        (definition.interval, definition.weekStart) = try insightInterval()
        if definition.interval != .day, let weekly = series.first(where: { $0.math == .weeklyActive || $0.math == .monthlyActive }) {
            throw error("interval", "\(weekly.math.text) counts each day's last 7 or 30 days; use interval = \"day\"")
        }
        if let property = try nonEmptyString("breakdown") {
            var source = FunnelBreakdown.Source.event
            if let text = try string("breakdown_type") {
                guard let parsed = FunnelBreakdown.Source(rawValue: text) else {
                    throw error("breakdown_type", "expected \"event\" or \"person\", got \"\(text)\"")
                }
                source = parsed
            }
            definition.breakdown = FunnelBreakdown(property: property, source: source)
        } else if try string("breakdown_type") != nil {
            throw error("breakdown_type", "needs a breakdown: set breakdown = \"<property>\" in this entry too")
        }
        definition.breakdownLimit = try integer("breakdown_limit", in: 1...1000) ?? definition.breakdownLimit
        definition.formula = try nonEmptyString("formula")
        definition.days = try integer("days", in: 1...3650) ?? definition.days
        return definition
    }

    mutating func lifecycle() throws(ConfigurationError) -> LifecycleDefinition {
        guard let name = try name("name") else {
            throw ConfigurationError(line: table.line, key: dotted("name"), message: "every [[lifecycle]] entry needs a name")
        }
        guard let text = try nonEmptyString("event") else {
            throw error("event", "every [[lifecycle]] entry needs event = \"<event>\"")
        }
        var definition = LifecycleDefinition(name: name, event: try eventMatcher("event", text: text))
        (definition.interval, definition.weekStart) = try insightInterval()
        definition.days = try integer("days", in: 1...3650) ?? definition.days
        return definition
    }

    mutating func retention() throws(ConfigurationError) -> RetentionDefinition {
        guard let name = try name("name") else {
            throw ConfigurationError(line: table.line, key: dotted("name"), message: "every [[retention]] entry needs a name")
        }
        func matcher(_ key: String, _ fallback: String) throws(ConfigurationError) -> EventMatcher {
            let text = try nonEmptyString(key) ?? fallback
            do {
                var matcher = try FunnelSyntax.matcher(text)
                matcher.events = matcher.events.map(FunnelDefinition.eventName)
                return matcher
            } catch {
                throw self.error(key, error.description)
            }
        }
        var definition = RetentionDefinition(name: name, start: try matcher("start", "install"),
                                             returning: try matcher("return", "app_open"))
        if let text = try string("cohorts") {
            guard let parsed = RetentionCohortType(rawValue: text) else {
                throw error("cohorts", "expected \"first_time\" or \"recurring\", got \"\(text)\"")
            }
            definition.cohortType = parsed
        }
        if let text = try string("period") {
            guard let parsed = RetentionPeriod(rawValue: text) else {
                throw error("period", "expected \"day\", \"week\" or \"month\", got \"\(text)\"")
            }
            definition.period = parsed
        }
        definition.periods = try integer("periods", in: 1...3650) ?? (definition.period == .day ? 30 : 12)
        definition.minOccurrences = try integer("min_occurrences", in: 1...1_000_000) ?? 1
        definition.brackets = try brackets("brackets") ?? []
        return definition
    }

    mutating func assumedZone(_ key: String) throws(ConfigurationError) -> String? {
        guard let zone = try string(key) else { return nil }
        guard TimeZoneSpelling.isValid(zone) else {
            throw error(key, "expected an IANA time zone name such as \"Europe/Berlin\" or an offset such as \"+02:00\", got \"\(zone)\"")
        }
        return zone
    }

    /// `[ingest]`: the defaults of every file's reading.
    mutating func ingest(into settings: inout IngestSettings) throws(ConfigurationError) {
        settings.assumeTimeZone = try assumedZone("assume_tz") ?? settings.assumeTimeZone
        settings.maxRejectShare = try number("max_reject_share", in: 0.0...1.0) ?? settings.maxRejectShare
        settings.maxExpansion = try number("max_expansion", in: 1...1_000_000) ?? settings.maxExpansion
        if let size = try string("max_decompressed") {
            guard IngestSettings.parseSize(size) != nil else {
                throw error("max_decompressed", "expected a size in bytes or with K, M, G or T, like \"64G\", got \"\(size)\"")
            }
            settings.maxDecompressed = size
        }
    }

    /// `[[ingest.apps]]`: one app's zone for its zone-less timestamps.
    mutating func ingestApp() throws(ConfigurationError) -> (app: String, zone: String) {
        guard let app = try nonEmptyString("app") else {
            throw ConfigurationError(line: table.line, key: dotted("app"), message: "every [[ingest.apps]] entry needs an app (its app_id)")
        }
        guard let zone = try assumedZone("assume_tz") else {
            throw ConfigurationError(line: table.line, key: dotted("assume_tz"),
                                     message: "every [[ingest.apps]] entry needs assume_tz, the zone its exports write times in")
        }
        return (app, zone)
    }

    /// `[[ingest.files]]`: the settings of the files whose name matches a pattern.
    mutating func ingestFileRule() throws(ConfigurationError) -> IngestSettings.FileRule {
        guard let pattern = try nonEmptyString("pattern") else {
            throw ConfigurationError(line: table.line, key: dotted("pattern"),
                                     message: "every [[ingest.files]] entry needs a pattern, a file name glob like \"af-installs-*.csv\"")
        }
        var rule = IngestSettings.FileRule(pattern: pattern)
        if let kind = try string("kind") {
            guard EventKind(rawValue: kind) != nil else {
                throw error("kind", "expected one of \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(kind)\"")
            }
            rule.kind = kind
        }
        rule.assumeTimeZone = try assumedZone("assume_tz")
        if let source = try string("source") {
            guard IngestSettings.vendorSources.contains(source) else {
                throw error("source", "expected one of \(IngestSettings.vendorSources.joined(separator: ", ")), got \"\(source)\"")
            }
            guard rule.kind == nil else { throw error("source", "a vendor's export holds several kinds: give kind or source, not both") }
            rule.source = source
        }
        return rule
    }

    func rejectUnusedKeys() throws(ConfigurationError) {
        if let unknown = table.keyOrder.first(where: { !used.contains($0) }) {
            let known = used.sorted().joined(separator: ", ")
            throw error(unknown, "unknown key; expected one of \(known)")
        }
    }
}
