fn main() -> anyhow::Result<()> {
    subscriber_server::cli::main()
}
