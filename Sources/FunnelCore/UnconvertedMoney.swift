/// Money compute could not convert to USD: the purchases (or ad spend) of one app in one currency
/// without a rate on their dates, read from `money_unconverted`. Compute keeps leaving it out of
/// the metrics (it cannot guess a rate); compute, `funnel status` and every report name it with
/// ``notice``.
public struct UnconvertedMoney: Sendable, Codable, Equatable, Hashable {
    /// What the money is: `purchases` or `ad_spend`.
    public var source: String
    public var appID: String
    public var currency: String
    /// Rows (purchases, refunds included, or ad spend rows) without a rate.
    public var rows: Int64
    /// Their sum in the currency, as a decimal text (`300.000000`).
    public var amount: String
    /// The earliest and latest dates without a rate (`YYYY-MM-DD`; UTC date of a purchase).
    public var firstDate: String
    public var lastDate: String

    public init(source: String, appID: String, currency: String, rows: Int64, amount: String,
                firstDate: String, lastDate: String) {
        self.source = source
        self.appID = appID
        self.currency = currency
        self.rows = rows
        self.amount = amount
        self.firstDate = firstDate
        self.lastDate = lastDate
    }

    /// Reads one row of `reports/money_unconverted.sql` through `column`, which gives a column's
    /// text by name.
    public init(decoding column: (String) throws -> String) throws {
        self.init(source: try column("source"), appID: try column("app_id"), currency: try column("currency"),
                  rows: Int64(try column("rows")) ?? 0, amount: try column("amount"),
                  firstDate: try column("first_date"), lastDate: try column("last_date"))
    }

    private enum CodingKeys: String, CodingKey {
        case source, appID = "app_id", currency, rows, amount, firstDate = "first_date", lastDate = "last_date"
    }

    /// What the money leaves out of the metrics.
    public var leftOut: String {
        source == "ad_spend" ? "spend, CPI and ROAS" : "revenue, LTV and ROAS"
    }

    /// The amount with two decimals (cents), as reports show money.
    public var amountText: String {
        guard let dot = amount.firstIndex(of: ".") else { return amount + ".00" }
        let fraction = amount[amount.index(after: dot)...]
        var cents = String(fraction.prefix(2))
        while cents.count < 2 { cents += "0" }
        return String(amount[..<dot]) + "." + cents
    }

    /// One sentence naming the money and what to do, e.g. `CHF: 3 purchases, CHF 300.00 not
    /// converted (no rate on or before 2024-05-03): left out of revenue, LTV and ROAS; load its
    /// rates (a currency_rates file) with funnel ingest and compute again`.
    public var notice: String {
        let what = source == "ad_spend" ? (rows == 1 ? "ad spend row" : "ad spend rows") : (rows == 1 ? "purchase" : "purchases")
        return "\(currency): \(rows) \(what), \(currency) \(amountText) not converted (no rate on or before \(lastDate)): "
            + "left out of \(leftOut); load its rates (a currency_rates file) with funnel ingest and compute again"
    }
}
