from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("episodes", "0008_episode_variation"),
    ]

    operations = [
        migrations.AddField(
            model_name="step",
            name="observation",
            field=models.TextField(
                blank=True,
                default="",
                help_text="The observation text the agent was given when it chose this step's action, in the episode's observation mode (episodes.engine.observation.render_observation), so a trainer can rebuild its prompts; blank for a step of an episode in the agent's own browser, which the platform never observed.",
            ),
        ),
    ]
