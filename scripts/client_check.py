"""Calls every operation of a real `sanctions serve` through a client generated from its
OpenAPI document by openapi-python-client, and parses every answer into the generated
models (scripts/client_check.sh runs it).

    python3 client_check.py CLIENT_DIR BASE_URL KEY

Each call must succeed (2xx) and parse into its success model (not `Error`, not None), and
the parsed model must serialise back (`to_dict`). Prints one line per operation and the
count; exits 1 at the first failure, naming the operation and the answer.
"""

import sys

sys.path.insert(0, sys.argv[1])
client_dir, base, key = sys.argv[1:4]

from client import AuthenticatedClient  # noqa: E402
from client.api import extensions as ext  # noqa: E402,F401
from client.api import interface as itf  # noqa: E402,F401
from client.api.extensions import (  # noqa: E402
    account_keys, alert, alert_status, audit, decide, entity, favorite, get_stored_screening,
    import_favorites,
    list_screenings, refresh_briefs, rescreen_favorites, screen_preview, webhook,
    webhook_deliveries)
from client.api.interface import (  # noqa: E402
    add_favorite, alerts, brief, briefs, create_webhook, delete_webhook, favorites,
    get_screening, list_updates, lists, remove_favorite, screen, screen_batch, test_webhook,
    update_webhook, webhooks)
from client.models import (  # noqa: E402
    AlertStatus, AlertStatusRequest, BatchRequest, Decision, DecisionRequest, Error,
    FavoriteImport, FavoriteRequest, ListCode, ScreenRequest, WebhookCreate, WebhookUpdate)
import httpx  # noqa: E402

called = []


def ok(name, response):
    """The `data` of a successful, parsed answer."""
    parsed = response.parsed
    if not 200 <= response.status_code < 300 or parsed is None or isinstance(parsed, Error):
        sys.exit(f"{name}: {response.status_code} {response.content[:500]!r}")
    parsed.to_dict()
    called.append(name)
    print(f"ok  {response.status_code}  {name}")
    return parsed.data


c = AuthenticatedClient(base_url=base, token=key, timeout=httpx.Timeout(120.0))

screened = ok("screen", screen.sync_detailed(client=c, body=ScreenRequest(name="Vladimir Putin")))
sid = screened.id
eid = screened.results[0].entity_id
ok("screenPreview", screen_preview.sync_detailed(client=c, body=ScreenRequest(name="Usama bin Ladin")))
ok("screenBatch", screen_batch.sync_detailed(
    client=c, body=BatchRequest(names=["Banco Nacional de Cuba", "Kim Jong Un"])))
ok("getScreening", get_screening.sync_detailed(sid, client=c))
ok("listScreenings", list_screenings.sync_detailed(client=c, limit=5))
stored = ok("getStoredScreening", get_stored_screening.sync_detailed(sid, client=c))
if stored.id != sid:
    sys.exit(f"getStoredScreening: {stored.id} for {sid}")
ok("decide", decide.sync_detailed(sid, client=c, body=DecisionRequest(
    decision=Decision.FALSE_POSITIVE, note="client check", entity_id=eid)))
ok("audit", audit.sync_detailed(client=c))
ok("accountKeys", account_keys.sync_detailed(client=c))
ok("lists", lists.sync_detailed(client=c))
ok("listUpdates", list_updates.sync_detailed(ListCode.UN, client=c, limit=5))
ok("entity", entity.sync_detailed(eid, client=c))
fav = ok("addFavorite", add_favorite.sync_detailed(client=c, body=FavoriteRequest(name="Kim Jong Un")))
ok("favorites", favorites.sync_detailed(client=c))
if ok("favorite", favorite.sync_detailed(fav.id, client=c)).id != fav.id:
    sys.exit("favorite: another favorite than asked for")
ok("importFavorites", import_favorites.sync_detailed(
    client=c, body=FavoriteImport(names=[FavoriteRequest(name="Banco Nacional de Cuba")])))
ok("rescreenFavorites", rescreen_favorites.sync_detailed(client=c))
page = ok("alerts", alerts.sync_detailed(client=c))
if not page.items:
    sys.exit("alerts: no alert after screenings that matched")
if ok("alert", alert.sync_detailed(page.items[0].id, client=c)).id != page.items[0].id:
    sys.exit("alert: another alert than asked for")
ok("alertStatus", alert_status.sync_detailed(page.items[0].id, client=c, body=AlertStatusRequest(
    status=AlertStatus.ACKNOWLEDGED, note="client check")))
hook = ok("createWebhook", create_webhook.sync_detailed(client=c, body=WebhookCreate.from_dict(
    {"url": "http://127.0.0.1:9/hook", "events": ["screening.match"]})))
ok("webhooks", webhooks.sync_detailed(client=c))
ok("webhook", webhook.sync_detailed(hook.id, client=c))
ok("updateWebhook", update_webhook.sync_detailed(hook.id, client=c, body=WebhookUpdate(
    description="client check")))
ok("testWebhook", test_webhook.sync_detailed(hook.id, client=c))
ok("webhookDeliveries", webhook_deliveries.sync_detailed(hook.id, client=c))
ok("refreshBriefs", refresh_briefs.sync_detailed(client=c))
page = ok("briefs", briefs.sync_detailed(client=c, limit=5))
if not page.items:
    sys.exit("briefs: no brief after a refresh over imported lists")
ok("brief", brief.sync_detailed(page.items[0].id, client=c))
ok("deleteWebhook", delete_webhook.sync_detailed(hook.id, client=c))
ok("removeFavorite", remove_favorite.sync_detailed(fav.id, client=c))
print(f"{len(called)} operations called, every answer parsed")
