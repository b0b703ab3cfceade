//! clawtop's Gateway client against a real OpenClaw 2026.9.6 gateway on a copy of host-f.
mod support;

use support::fake_model::FakeModel;
use support::openclaw_gateway::RealGateway;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harness_starts_and_stops() {
    let fake = FakeModel::start().await;
    let mut gw = RealGateway::start(&fake.base_url()).await;
    assert!(std::net::TcpStream::connect(("127.0.0.1", gw.port())).is_ok());
    gw.restart().await;
    assert!(std::net::TcpStream::connect(("127.0.0.1", gw.port())).is_ok());
    gw.stop();
    assert!(std::net::TcpStream::connect(("127.0.0.1", gw.port())).is_err());
}
