import FunnelCompute
import FunnelCore
import PostgresClient
import Testing

/// Dated exchange rates (the latest on or before a row's date, the undated rates of
/// currency_rates before a currency's first dated one), money without a rate named rather than
/// counted as 0 silently, and refunds netted on their own day.
@Suite("Exchange rates by date, unconverted money, refunds")
struct CurrencyRatesComputeTests {
    private func rate(_ f: ComputeFixture, _ currency: String, _ date: String, _ usdPerUnit: Double) throws {
        try f.connection.query("""
            insert into raw_currency_rates (rate_date, currency, usd_per_unit, file_id) values ($1::date, $2, $3, 0)
            on conflict (currency, rate_date) do update set usd_per_unit = excluded.usd_per_unit
            """, [date, currency, usdPerUnit])
    }

    @Test("a CHF purchase without a rate is named with its count and amount; loaded rates convert it at the rate of its date")
    func unconvertedThenConverted() throws {
        let f = try ComputeFixture()
        try f.install("u1", "2024-05-01T10:00:00Z", network: "adnova")
        try f.purchase("u1", "2024-05-01T12:00:00Z", revenue: 10)
        try f.purchase("u1", "2024-05-02T12:00:00Z", revenue: 10, currency: "EUR")
        try f.purchase("u1", "2024-05-03T12:00:00Z", revenue: 100, currency: "CHF")
        try f.purchase("u1", "2024-05-05T12:00:00Z", revenue: 50, currency: "CHF")
        try f.open("u1", "2024-05-06T12:00:00Z")
        try f.spend("2024-05-01", network: "adnova", spend: 20)
        try f.spend("2024-05-01", network: "adnova", spend: 30, campaign: "c2", currency: "CHF")
        // The fixture writes raw rows without a loaded file, which only a rebuild of the whole
        // history reads for the list of unconverted money (a loaded file's rows are listed by the
        // run that folds them in).
        let before = try f.compute(full: true)
        let ltv = "select ltv from fct_ltv where network = 'adnova' and not projected and day = $1"
        // One install: day 0 10 USD, day 1 10 EUR x 1.08 (the undated rate): 20.8; CHF counts in nothing.
        #expect(try f.double(ltv, [0]) == 10)
        #expect(abs(try f.double(ltv, [4])! - 20.8) < 1e-9)
        #expect(try f.double("select spend from fct_cpi where date = '2024-05-01' and network = 'adnova' and campaign = 'all' and country = 'all'") == 20)
        #expect(before.unconverted.map(\.notice) == [
            "CHF: 1 ad spend row, CHF 30.00 not converted (no rate on or before 2024-05-01): left out of spend, CPI and ROAS; "
                + "load its rates (a currency_rates file) with funnel ingest and compute again",
            "CHF: 2 purchases, CHF 150.00 not converted (no rate on or before 2024-05-05): left out of revenue, LTV and ROAS; "
                + "load its rates (a currency_rates file) with funnel ingest and compute again",
        ])

        // CHF from 05-02 (1.10) and 05-04 (1.20); EUR from 05-03, which leaves the 05-02 purchase at 1.08.
        try rate(f, "CHF", "2024-05-02", 1.10)
        try rate(f, "CHF", "2024-05-04", 1.20)
        try rate(f, "EUR", "2024-05-03", 1.20)
        let after = try f.compute()
        #expect(after.mode == "incremental")
        // Day 2: 100 CHF x 1.10 (05-02, the latest on or before 05-03) = 110; day 4: 50 x 1.20 = 60.
        #expect(abs(try f.double(ltv, [1])! - 20.8) < 1e-9)
        #expect(abs(try f.double(ltv, [2])! - 130.8) < 1e-9)
        #expect(abs(try f.double(ltv, [4])! - 190.8) < 1e-9)
        #expect(abs(try f.double("select roas from fct_ltv where network = 'adnova' and not projected and day = 4")! - 190.8 / 20) < 1e-9)
        // The spend of 05-01 has no CHF rate on or before its date still.
        #expect(after.unconverted.map { "\($0.source) \($0.currency) \($0.rows) \($0.amount) \($0.lastDate)" }
            == ["ad_spend CHF 1 30.000000 2024-05-01"])
        let incremental = try f.snapshot("fct_ltv")
        let full = try f.compute(full: true)
        #expect(try f.snapshot("fct_ltv") == incremental, "the incremental run equals a full rebuild")
        #expect(full.unconverted == after.unconverted)

        // A rate of 05-01 converts the spend too; a rate changed later redoes what it touches.
        try rate(f, "CHF", "2024-05-01", 1.00)
        try rate(f, "CHF", "2024-05-04", 1.30)
        let last = try f.compute()
        #expect(last.unconverted.isEmpty)
        #expect(try f.double("select spend from fct_cpi where date = '2024-05-01' and network = 'adnova' and campaign = 'all' and country = 'all'") == 50)
        #expect(abs(try f.double(ltv, [4])! - 195.8) < 1e-9)
    }

    @Test("a refund nets revenue on its own day in LTV and ROAS; it is no purchase, no payer and no first purchase")
    func refunds() throws {
        let f = try ComputeFixture()
        try f.install("u1", "2024-05-01T10:00:00Z", network: "adnova")
        try f.install("u2", "2024-05-01T10:00:00Z", network: "adnova")
        try f.purchase("u1", "2024-05-01T12:00:00Z", revenue: 10)
        try f.purchase("u1", "2024-05-03T12:00:00Z", revenue: -4)
        try f.purchase("u2", "2024-05-02T12:00:00Z", revenue: -3)
        try f.open("u2", "2024-05-06T12:00:00Z")
        try f.spend("2024-05-01", network: "adnova", spend: 20)
        try f.markDirty("2024-05-01")
        try f.compute()
        func check(_ label: String) throws {
            let ltv = "select ltv from fct_ltv where network = 'adnova' and not projected and day = $1"
            // Two installs: day 0 10 / 2 = 5; day 1 (10 - 3) / 2 = 3.5; day 2 (10 - 3 - 4) / 2 = 1.5.
            #expect(try f.double(ltv, [0]) == 5, "\(label)")
            #expect(try f.double(ltv, [1]) == 3.5, "\(label)")
            #expect(try f.double(ltv, [2]) == 1.5, "\(label)")
            // ROAS day 2: 3 / 20.
            #expect(abs(try f.double("select roas from fct_ltv where network = 'adnova' and not projected and day = 2")! - 0.15) < 1e-9, "\(label)")
            // One payer, on day 0 only; u2's refund makes no payer and no first purchase.
            #expect(try f.int("select sum(payers) from int_cohort_day_rollup where network = 'adnova'") == 1, "\(label)")
            #expect(try f.int("select sum(new_payers) from int_cohort_day_rollup where network = 'adnova'") == 1, "\(label)")
            let facts = try f.connection.query("""
                select user_id || ' ' || coalesce(first_purchase_at::text, '-') || ' ' || purchase_days::text
                from int_user_facts order by user_id
                """).rows.map { try $0.decode(String.self, at: 0) }
            #expect(facts == ["u1 2024-05-01 12:00:00+00 {0}", "u2 - {}"], "\(label)")
            let split = try f.connection.query("""
                select concat_ws(' ', refunds, gross_revenue::numeric(10,2), refunded::numeric(10,2), net_revenue::numeric(10,2))
                from fct_revenue where network = $1
                """, ["all"]).rows.first?.decode(String.self, at: 0)
            #expect(split == "2 10.00 7.00 3.00", "\(label)")
        }
        // Funnels read purchases from analysis_events: the refunds are no purchase events there.
        #expect(try f.int("select count(*) from analysis_events where event = 'purchase'") == 1)
        try check("incremental (the server's statements)")
        try f.compute(full: true)
        try check("full rebuild (the client's pass)")
    }
}
