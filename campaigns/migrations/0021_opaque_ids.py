"""Stacks, units and fortifications get random ids (like events in 0007): a new object's id
no longer tells how many were made before it. `created_seq` keeps their creation order; the
rows made before this migration keep their ids, and their order is their old id."""

import campaigns.models
from django.db import migrations, models
from django.db.models import F


def order_by_old_ids(apps, schema_editor):
    for name in ("Fortification", "Stack", "Unit"):
        apps.get_model("campaigns", name).objects.update(created_seq=F("id"))


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0020_absence_extends'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='fortification',
            options={'ordering': ['created_seq', 'id']},
        ),
        migrations.AlterModelOptions(
            name='stack',
            options={'ordering': ['created_seq', 'id']},
        ),
        migrations.AlterModelOptions(
            name='unit',
            options={'ordering': ['created_seq', 'id']},
        ),
        migrations.AddField(
            model_name='fortification',
            name='created_seq',
            field=models.BigIntegerField(default=campaigns.models.next_creation_seq, editable=False),
        ),
        migrations.AddField(
            model_name='stack',
            name='created_seq',
            field=models.BigIntegerField(default=campaigns.models.next_creation_seq, editable=False),
        ),
        migrations.AddField(
            model_name='unit',
            name='created_seq',
            field=models.BigIntegerField(default=campaigns.models.next_creation_seq, editable=False),
        ),
        migrations.RunPython(order_by_old_ids, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='fortification',
            name='id',
            field=models.BigIntegerField(default=campaigns.models.new_public_id, editable=False, primary_key=True, serialize=False),
        ),
        migrations.AlterField(
            model_name='stack',
            name='id',
            field=models.BigIntegerField(default=campaigns.models.new_public_id, editable=False, primary_key=True, serialize=False),
        ),
        migrations.AlterField(
            model_name='unit',
            name='id',
            field=models.BigIntegerField(default=campaigns.models.new_public_id, editable=False, primary_key=True, serialize=False),
        ),
    ]
