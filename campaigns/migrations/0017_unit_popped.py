from django.db import migrations, models


def mark_pops(apps, schema_editor):
    """Units bought as pops before this field existed: their purchase events name them."""
    Event = apps.get_model("campaigns", "Event")
    Unit = apps.get_model("campaigns", "Unit")
    ids = []
    for payload in Event.objects.filter(kind="pops_bought").values_list("payload", flat=True):
        ids.extend(payload.get("units", []))
    if ids:
        Unit.objects.filter(pk__in=ids).update(popped=True)


class Migration(migrations.Migration):

    dependencies = [
        ("campaigns", "0016_deputy"),
    ]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="popped",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_pops, migrations.RunPython.noop),
    ]
