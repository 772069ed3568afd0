from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("episodes", "0009_step_observation"),
    ]

    operations = [
        migrations.AddField(
            model_name="step",
            name="target_bid",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The bid the element the action named carried in the observation it was chosen on (a selector resolved when the engine ran it), so datasets give the action as a model that sees bids writes it; blank when the action names no element or none matched.",
                max_length=40,
            ),
        ),
    ]
